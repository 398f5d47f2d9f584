import OperationTestSupport
import Processed
import Testing

// The rules every run follows, whatever holds the state (`StateController`): each test runs
// against `LoadableSupport`, `LoadableBinding`, `ProcessSupport` and `ProcessBinding`, and reads
// the histories as steps (`.started(1)` is `loading`, or `running` the process of run 1).

@MainActor
@Suite struct `StateController tests` {
  // MARK: - Outcomes

  @Test(arguments: Subject.allCases)
  func `A Run That Returns Sets Its Starting Then Its Finished State`(_ subject: Subject) async {
    let harness = subject.harness()
    await harness.run(42)
    harness.expectHistory([.reset, .started(42), .finished(42)])
  }

  @Test(arguments: Subject.allCases)
  func `A Silent Run Skips Its Starting State`(_ subject: Subject) async {
    let harness = subject.harness()
    await harness.run(42, silently: true)
    harness.expectHistory([.reset, .finished(42)])
  }

  @Test(arguments: Subject.allCases)
  func `An Error Sets The Failed State`(_ subject: Subject) async {
    let harness = subject.harness()
    await harness.run(42) { throw TestError() }
    harness.expectHistory([.reset, .started(42), .failed(42, TestError())])
    #expect(harness.error as? TestError == TestError())
  }

  @Test(arguments: Subject.allCases)
  func `Throwing CancellationError Leaves The State`(_ subject: Subject) async {
    let harness = subject.harness()
    await harness.run(42) { throw CancellationError() }
    harness.expectHistory([.reset, .started(42)])
  }

  @Test(arguments: Subject.allCases)
  func `Throwing The Cancel Request Leaves The State`(_ subject: Subject) async {
    let harness = subject.harness()
    await harness.run(42) { throw harness.cancelRequest }
    harness.expectHistory([.reset, .started(42)])
  }

  @Test(arguments: Subject.allCases)
  func `Throwing The Cancel Request Then Cancelling Leaves The State`(_ subject: Subject) async {
    let harness = subject.harness()
    await harness.run(42) { throw harness.cancelRequest }
    harness.cancel()
    harness.expectHistory([.reset, .started(42)])
  }

  @Test(arguments: Subject.allCases)
  func `Throwing The Reset Request Sets The Reset State`(_ subject: Subject) async {
    let harness = subject.harness()
    await harness.run(42) { throw harness.resetRequest }
    harness.expectHistory([.reset, .started(42), .reset])
  }

  @Test(arguments: Subject.allCases)
  func `A Second Run Sets The Starting State Again`(_ subject: Subject) async {
    let harness = subject.harness()
    await harness.run(42)
    await harness.run(73)
    harness.expectHistory([.reset, .started(42), .finished(42), .started(73), .finished(73)])
  }

  @Test(arguments: Subject.allCases)
  func `A Run After A Failure Sets The Starting State Again`(_ subject: Subject) async {
    let harness = subject.harness()
    await harness.run(42) { throw TestError() }
    await harness.run(73)
    harness.expectHistory([
      .reset, .started(42), .failed(42, TestError()), .started(73), .finished(73),
    ])
  }

  // MARK: - Reset and cancel

  @Test(arguments: Subject.allCases)
  func `Reset Sets The Reset State`(_ subject: Subject) async {
    let harness = subject.harness()
    await harness.run(42)
    harness.reset()
    harness.expectHistory([.reset, .started(42), .finished(42), .reset])
  }

  @Test(arguments: Subject.allCases)
  func `Reset Of A Reset State Assigns Nothing`(_ subject: Subject) {
    let harness = subject.harness()
    harness.reset()
    harness.expectHistory([.reset])
  }

  @Test(arguments: Subject.allCases)
  func `Cancelling The Calling Task Leaves The Starting State`(_ subject: Subject) async {
    let harness = subject.harness()
    let work = ManualDelayer()
    var reachedEnd = false
    let task = Task {
      await harness.run(42) {
        try await work.delay(for: .seconds(2))
        reachedEnd = true
      }
    }
    task.cancel()
    await task.value
    harness.expectHistory([.reset, .started(42)])
    #expect(!reachedEnd)
  }

  @Test(arguments: Subject.allCases)
  func `Cancel Stops The Run And Leaves The Starting State`(_ subject: Subject) async {
    let harness = subject.harness()
    let work = ManualDelayer()
    let task = harness.start(42) { try await work.delay(for: .seconds(1)) }
    #expect(harness.isIn(.started(42)))
    await work.waitForDelays(count: 1)
    harness.cancel()
    #expect(work.cancelledCount == 1)
    await task.value
    harness.expectHistory([.reset, .started(42)])
  }

  @Test(arguments: Subject.allCases)
  func `Reset Stops The Run And Sets The Reset State`(_ subject: Subject) async {
    let harness = subject.harness()
    let work = ManualDelayer()
    let task = harness.start(42) { try await work.delay(for: .seconds(1)) }
    await work.waitForDelays(count: 1)
    harness.reset()
    #expect(work.cancelledCount == 1)
    await task.value
    harness.expectHistory([.reset, .started(42), .reset])
  }

  @Test(arguments: Subject.bindings, [Step.reset, .finished(7)])
  func `Setting The Wrapped Value Cancels The Run First`(_ subject: Subject, _ step: Step) async {
    let harness = subject.harness()
    let work = ManualDelayer()
    let task = harness.start(42) { try await work.delay(for: .seconds(1)) }
    await work.waitForDelays(count: 1)
    harness.assign(step)
    #expect(work.cancelledCount == 1)
    await task.value
    harness.expectHistory([.reset, .started(42), step])
  }

  // MARK: - Tasks

  @Test(arguments: Subject.allCases)
  func `The Task Form Sets The Starting State At Once And The Finished One When It Ends`(
    _ subject: Subject
  ) async {
    let harness = subject.harness()
    let release = Gate()
    let task = harness.start(42) { await release.wait() }
    #expect(harness.isIn(.started(42)))
    release.open()
    await task.value
    harness.expectHistory([.reset, .started(42), .finished(42)])
  }

  @Test(arguments: Subject.allCases, Form.allCases)
  func `A New Run Cancels The Previous One`(_ subject: Subject, _ form: Form) async {
    let harness = subject.harness()
    let work = ManualDelayer()
    let first = harness.start(1) { try await work.delay(for: .seconds(1)) }
    await work.waitForDelays(count: 1)
    switch form {
    case .task: await confirmCancelled(work, by: harness.start(2))
    case .async: await harness.run(2)
    }
    #expect(work.cancelledCount == 1)
    await first.value
    harness.expectHistory([.reset, .started(1), .started(2), .finished(2)])
  }

  @Test(arguments: Subject.allCases)
  func `A Replaced Run That Ignores Cancellation Changes Nothing`(_ subject: Subject) async {
    let harness = subject.harness()
    let release = Gate()
    let first = harness.start(1) { await release.wait() }
    await harness.run(2)
    release.open()
    await first.value
    harness.expectHistory([.reset, .started(1), .started(2), .finished(2)])
  }

  @Test(arguments: Subject.allCases)
  func `A New Run Of The Same Run Neither Sets Its Starting State Twice Nor Keeps The Old Run`(
    _ subject: Subject
  ) async {
    let harness = subject.harness()
    let work = ManualDelayer()
    let first = harness.start(1) { try await work.delay(for: .seconds(1)) }
    await work.waitForDelays(count: 1)
    await harness.run(1)
    #expect(work.cancelledCount == 1)
    await first.value
    harness.expectHistory([.reset, .started(1), .started(1), .finished(1)])
  }

  @Test(arguments: Subject.allCases)
  func `A Replaced Run Ending Late Neither Overwrites Nor Frees The New Run`(
    _ subject: Subject
  ) async {
    let harness = subject.harness()
    let releaseFirst = Gate()
    let work = ManualDelayer()
    let first = harness.start(1) { await releaseFirst.wait() }
    let second = harness.start(2) { try await work.delay(for: .seconds(1)) }
    await work.waitForDelays(count: 1)
    releaseFirst.open()
    await first.value
    harness.expectHistory([.reset, .started(1), .started(2)])

    harness.cancel()
    #expect(work.cancelledCount == 1)
    work.resumeAll()
    await second.value
    harness.expectHistory([.reset, .started(1), .started(2)])
  }

  @Test(arguments: Subject.allCases)
  func `Two Containers Run At Once Without Cancelling Each Other`(_ subject: Subject) async {
    let first = subject.harness()
    let second = subject.harness()
    let work = ManualDelayer()
    let firstTask = first.start(1) { try await work.delay(for: .seconds(1)) }
    let secondTask = second.start(2) { try await work.delay(for: .seconds(2)) }
    await work.waitForDelays(count: 2)
    #expect(work.cancelledCount == 0)

    first.cancel()
    #expect(work.cancelledCount == 1)
    #expect(work.resumeAll() == 1)
    await firstTask.value
    await secondTask.value
    first.expectHistory([.reset, .started(1)])
    second.expectHistory([.reset, .started(2), .finished(2)])
  }

  @Test(arguments: Subject.allCases)
  func `The Async Form Runs In The Calling Task`(_ subject: Subject) async {
    let harness = subject.harness()
    let work = ManualDelayer()
    let task = Task {
      await harness.run(1) { try await work.delay(for: .seconds(1)) }
    }
    await work.waitForDelays(count: 1)
    // NB: The run is not in the container's slot; cancelling the calling task stops it.
    harness.cancel()
    #expect(work.cancelledCount == 0)
    task.cancel()
    #expect(work.cancelledCount == 1)
    await task.value
    harness.expectHistory([.reset, .started(1)])
  }
}

/// Expects that starting `task` cancelled the work on `work` at once, then waits for `task`.
@MainActor
private func confirmCancelled(
  _ work: ManualDelayer,
  by task: Task<Void, Never>,
  sourceLocation: SourceLocation = #_sourceLocation
) async {
  #expect(work.cancelledCount == 1, sourceLocation: sourceLocation)
  await task.value
}
