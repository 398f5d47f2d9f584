@_spi(Warnings) import OperationCore
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `OperationTask tests` {
  @Test func `Concurrent Awaits Run The Work Once`() async throws {
    let runs = CallCounter()
    let started = Gate()
    let release = Gate()
    let task = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in
      runs.increment()
      started.open()
      await release.wait()
      return 1
    }
    async let first = task.runIfNeeded()
    async let second = task.runIfNeeded()
    async let third = task.runIfNeeded()
    await started.wait()
    release.open()
    let values = try await [first, second, third]
    #expect(values == [1, 1, 1])
    #expect(try await task.runIfNeeded() == 1)
    #expect(runs.value == 1)
  }

  @Test func `Dependencies Run First And Their Errors Are Ignored`() async throws {
    let log = Lock([String]())
    let failing = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in
      log.withLock { $0.append("failing") }
      throw TestError()
    }
    let succeeding = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in
      log.withLock { $0.append("succeeding") }
      return 2
    }
    let task = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in
      log.withLock { $0.append("task") }
      return 3
    }
    task.schedule(after: [failing, succeeding])

    #expect(try await task.runIfNeeded() == 3)
    let entries = log.withLock { $0 }
    #expect(Set(entries.prefix(2)) == ["failing", "succeeding"])
    #expect(entries.last == "task")
    #expect(failing.isFinished)
    #expect(throws: TestError()) { try failing.finishedResult?.get() }
    #expect(try succeeding.finishedResult?.get() == 2)
  }

  @Test func `Scheduling After The Same Task Twice Runs It Once`() async throws {
    let runs = CallCounter()
    let dependency = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in
      runs.increment()
    }
    let task = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in 0 }
    task.schedule(after: dependency)
    task.schedule(after: dependency)
    try await task.runIfNeeded()
    #expect(runs.value == 1)
    #expect(dependency.isFinished)
  }

  @Test func `Scheduling After Start Has No Effect`() async throws {
    let runs = CallCounter()
    let started = Gate()
    let release = Gate()
    let dependency = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in
      runs.increment()
    }
    let task = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in
      started.open()
      await release.wait()
      return 1
    }
    let runner = Task { try await task.runIfNeeded() }
    await started.wait()
    task.schedule(after: dependency)
    release.open()
    #expect(try await runner.value == 1)
    #expect(runs.value == 0)
    #expect(!dependency.hasStarted)
  }

  @Test func `Lifecycle Flags Follow The Run`() async throws {
    let started = Gate()
    let release = Gate()
    let task = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in
      started.open()
      await release.wait()
      return 1
    }
    #expect(!task.hasStarted && !task.isRunning && !task.isFinished)
    #expect(task.finishedResult == nil)

    let runner = Task { try await task.runIfNeeded() }
    await started.wait()
    #expect(task.hasStarted && task.isRunning && !task.isFinished)
    #expect(task.finishedResult == nil)

    release.open()
    #expect(try await runner.value == 1)
    #expect(task.hasStarted && !task.isRunning && task.isFinished)
    #expect(try task.finishedResult?.get() == 1)
    #expect(!task.isCancelled)
  }

  @Test func `Cancelling A Running Task Throws Cancellation Error`() async {
    let started = Gate()
    let release = Gate()
    let task = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in
      started.open()
      await release.wait()
      try Task.checkCancellation()
      return 1
    }
    let runner = Task { try await task.runIfNeeded() }
    await started.wait()
    task.cancel()
    release.open()
    await #expect(throws: CancellationError.self) { try await runner.value }
    #expect(task.isCancelled)
    #expect(task.isFinished)
  }

  @Test func `Cancelling The Awaiting Caller Cancels The Task`() async {
    let started = Gate()
    let release = Gate()
    let task = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in
      started.open()
      await release.wait()
      try Task.checkCancellation()
      return 1
    }
    let caller = Task { try await task.runIfNeeded() }
    await started.wait()
    caller.cancel()
    release.open()
    await #expect(throws: CancellationError.self) { try await caller.value }
    #expect(task.isCancelled)
  }

  @Test func `Pre Cancelled Task Starts Cancelled So Cooperative Work Throws`() async {
    let runs = CallCounter()
    let task = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in
      runs.increment()
      try Task.checkCancellation()
      return 1
    }
    task.cancel()
    #expect(task.isCancelled)
    #expect(!task.hasStarted)

    await #expect(throws: CancellationError.self) { try await task.runIfNeeded() }
    #expect(runs.value == 1)
  }

  @Test func `Pre Cancelled Non Throwing Task Still Completes`() async {
    let task = OperationTask<Int, Never>(context: OperationContext()) { _, _ in
      Task.isCancelled ? 2 : 1
    }
    task.cancel()
    #expect(await task.runIfNeeded() == 2)
    #expect(task.finishedResult == .success(2))
  }

  @Test func `Cancelling A Finished Task Does Nothing`() async throws {
    let task = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in 1 }
    try await task.runIfNeeded()
    task.cancel()
    #expect(!task.isCancelled)
    #expect(try task.finishedResult?.get() == 1)
    #expect(try await task.runIfNeeded() == 1)
  }

  @Test func `Map Shares The Id And The Result`() async throws {
    let runs = CallCounter()
    let task = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in
      runs.increment()
      return 21
    }
    let mapped = task.map { String($0 * 2) }
    #expect(mapped.id == task.id)
    #expect(try await mapped.runIfNeeded() == "42")
    #expect(task.isFinished)
    #expect(try task.finishedResult?.get() == 21)
    #expect(try await task.runIfNeeded() == 21)
    #expect(runs.value == 1)
  }

  @Test func `Map Error Shares The Id And Transforms The Error`() async {
    let task = OperationTask<Int, TestError>(context: OperationContext()) {
      _,
      _ throws(TestError) in
      throw TestError(message: "inner")
    }
    let mapped = task.mapError { TestError(message: "mapped \($0.message)") }
    #expect(mapped.id == task.id)
    await #expect(throws: TestError(message: "mapped inner")) { try await mapped.runIfNeeded() }
    #expect(task.finishedResult == .failure(TestError(message: "inner")))
  }

  @Test func `A Task Returns Its Value When The Value Type Is An Existential Or A Superclass`()
    async throws
  {
    let existential = OperationTask<any CustomStringConvertible & Sendable, any Error>(
      context: OperationContext()
    ) { _, _ in 42 }
    #expect(try await existential.runIfNeeded().description == "42")
    #expect(try existential.finishedResult?.get().description == "42")

    let erased = OperationTask<any Sendable, any Error>(context: OperationContext()) { _, _ in
      "text"
    }
    #expect(try await erased.runIfNeeded() as? String == "text")

    let superclass = OperationTask<Animal, any Error>(context: OperationContext()) { _, _ in
      Dog()
    }
    #expect(try await superclass.runIfNeeded().sound == "woof")

    let optional = OperationTask<Int?, any Error>(context: OperationContext()) { _, _ in nil }
    #expect(try await optional.runIfNeeded() == nil)
  }

  @Test func `Mapped Task Cancellation Cancels The Base Task`() async {
    let task = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in
      try Task.checkCancellation()
      return 1
    }
    let mapped = task.map { $0 + 1 }
    mapped.cancel()
    #expect(task.isCancelled)
    await #expect(throws: CancellationError.self) { try await task.runIfNeeded() }
  }

  @Test func `Work Receives The Task Id As Running Task Identifier`() async throws {
    let task = OperationTask<OperationTaskIdentifier?, any Error>(context: OperationContext()) {
      _,
      context in
      context.operationRunningTaskIdentifier
    }
    #expect(task.context.operationRunningTaskIdentifier == nil)
    #expect(try await task.runIfNeeded() == task.id)
  }

  @Test func `Work Receives The Task Id Argument`() async throws {
    let task = OperationTask<OperationTaskIdentifier, any Error>(context: OperationContext()) {
      id,
      _ in
      id
    }
    #expect(try await task.runIfNeeded() == task.id)
  }

  @Test func `Configuration Proxies The Context`() {
    var task = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in 1 }
    task.configuration.name = "Fetch"
    #expect(task.context.operationTaskConfiguration.name == "Fetch")

    task.context.operationTaskConfiguration.name = "Refetch"
    #expect(task.configuration.name == "Refetch")
    #expect(task.info.configuration.name == "Refetch")
  }

  @Test func `Work Runs In A Swift Task With The Configured Name`() async throws {
    var context = OperationContext()
    context.operationTaskConfiguration.name = "Named Work"
    let task = OperationTask<String?, any Error>(context: context) { _, _ in Task.name }
    #expect(try await task.runIfNeeded() == "Named Work")
  }

  @Test func `Info Description Names The Task`() {
    var task = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in 1 }
    #expect(task.info.description == "[Unnamed OperationTask](ID: \(task.id.debugDescription))")
    task.configuration.name = "Fetch"
    #expect(task.info.description == "[Fetch](ID: \(task.id.debugDescription))")
  }

  @Test func `Copies Are Equal And Distinct Tasks Are Not`() {
    let task = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in 1 }
    let other = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in 1 }
    let copy = task
    #expect(task == copy)
    #expect(task.hashValue == copy.hashValue)
    #expect(task != other)
    #expect(task.id != other.id)
  }

  @Test func `Circular Scheduling Is Reported And Does Not Deadlock`() async throws {
    var first = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in 1 }
    first.configuration.name = "First"
    var second = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in 2 }
    second.configuration.name = "Second"
    second.schedule(after: first)
    let (firstTask, secondTask) = (first, second)

    #if DEBUG
      withKnownIssue {
        firstTask.schedule(after: secondTask)
      } matching: { issue in
        issue.comments.contains(
          Comment(
            rawValue: OperationWarning.operationTaskCircularScheduling(
              info: [firstTask.info, secondTask.info, firstTask.info]
            ).message
          )
        )
      }
    #else
      firstTask.schedule(after: secondTask)
    #endif

    #expect(try await second.runIfNeeded() == 2)
    #expect(try await first.runIfNeeded() == 1)
  }

  @Test func `Scheduling A Task After Itself Is Reported`() async throws {
    let task = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in 1 }
    #if DEBUG
      withKnownIssue {
        task.schedule(after: task)
      } matching: { issue in
        issue.comments.contains(
          Comment(
            rawValue: OperationWarning.operationTaskCircularScheduling(info: [task.info, task.info])
              .message
          )
        )
      }
    #else
      task.schedule(after: task)
    #endif
    #expect(try await task.runIfNeeded() == 1)
  }

  @Test func `Scheduling Two Tasks After Each Other At Once Adds One Edge Only`() async {
    var edgeCounts = [Int]()
    for _ in 0..<50 {
      let first = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in 1 }
      let second = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in 2 }
      // NB: Whichever scheduling comes second closes a cycle, which is reported (in debug
      // builds) and not added.
      await withKnownIssue(isIntermittent: true) {
        await withTaskGroup(of: Void.self) { group in
          group.addTask { first.schedule(after: second) }
          group.addTask { second.schedule(after: first) }
        }
      } matching: { issue in
        issue.comments.contains {
          $0.rawValue.contains("circular") || $0.rawValue.contains("cycle")
        }
      }
      edgeCounts.append(first.dependencyCount + second.dependencyCount)
    }
    #expect(edgeCounts.allSatisfy { $0 == 1 })
  }

}

/// A class whose subclass a task returns as the class, to test that the subclass comes back.
// NB: `@unchecked Sendable` is safe: neither class has stored properties.
private class Animal: @unchecked Sendable {
  var sound: String { "" }
}

/// The subclass of ``Animal`` that tasks return.
private final class Dog: Animal, @unchecked Sendable {
  override var sound: String { "woof" }
}
