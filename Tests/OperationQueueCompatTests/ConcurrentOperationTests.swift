import Foundation
@_spi(Warnings) import OperationCore
@_spi(Warnings) import OperationGraph
import OperationGraphTestFixtures
@_spi(Warnings) import OperationQueueCompat
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `ConcurrentOperation tests` {
  @Test func `a plain queue runs dependents after their dependencies finish`() async throws {
    let log = EventLog()
    let a = TestOperation(name: "A", log: log)
    let b = TestOperation(name: "B", log: log)
    let c = TestOperation(name: "C", log: log)
    b.addDependency(a)
    c.addDependency(a)
    c.addDependency(b)
    let queue = OperationQueue()
    for operation in [c, b, a] {
      queue.addOperation(operation)
    }
    try await c.untilFinished()
    #expect(log.events == ["A", "B", "C"])
    #expect(a.isFinished && b.isFinished && c.isFinished)
    #expect(!c.isExecuting)
    #expect(queue.operationCount == 0)
  }

  @Test func `an operation is executing while it works and finished after`() async throws {
    let gate = Gate()
    let operation = TestOperation(gate: gate)
    #expect(!operation.isExecuting && !operation.isFinished && operation.isAsynchronous)
    let started = Latch()
    operation.addDidStartBlock { started.arrive() }
    OperationQueue().addOperation(operation)
    await started.wait(for: 1)
    #expect(operation.isExecuting && !operation.isFinished)
    gate.open()
    try await operation.untilFinished()
    #expect(!operation.isExecuting && operation.isFinished)
  }

  @Test func `only the first finish counts`() async throws {
    let operation = FinishingTwice()
    OperationQueue().addOperation(operation)
    await #expect(throws: OperationErrors.self) { try await operation.untilFinished() }
    #expect(operation.errors.map { $0 as? TestError } == [TestError(id: 1)])
    #expect(operation.finishedHookCalls == [[TestError(id: 1)]])
  }

  @Test(arguments: ["willStart", "didStart"])
  func `An Operation Cancelled By Its Observer Before It Executes Finishes Without Executing`(
    event: String
  ) async throws {
    let operations = (0..<100).map { _ in TestOperation() }
    let observer = BlockObserver(
      willStart: { operation in
        if event == "willStart" { operation.cancel() }
      },
      didStart: { operation in
        if event == "didStart" { operation.cancel() }
      }
    )
    let queue = OperationQueue()
    for operation in operations {
      operation.addObserver(observer)
      queue.addOperation(operation)
    }
    for operation in operations {
      await #expect(throws: CancellationError.self) { try await operation.untilFinished() }
    }
    #expect(operations.allSatisfy { $0.executionCount == 0 })
    #expect(operations.allSatisfy { $0.isFinished && $0.isCancelled && !$0.isExecuting })
    #expect(queue.operationCount == 0)
  }

  @Test func `errors and failed come from finish`() async throws {
    let succeeded = TestOperation()
    let failed = TestOperation(error: TestError(id: 7))
    let queue = OperationQueue()
    queue.addOperation(succeeded)
    queue.addOperation(failed)
    try await succeeded.untilFinished()
    await #expect(throws: OperationErrors.self) { try await failed.untilFinished() }
    #expect(!succeeded.failed && succeeded.errors.isEmpty)
    #expect(failed.failed && failed.errors.map { $0 as? TestError } == [TestError(id: 7)])
  }

  @Test func `a cancelled operation finishes without executing, with finish events only`()
    async throws
  {
    let log = EventLog()
    let operation = TestOperation()
    operation.addWillStartBlock { log.append("will start") }
    operation.addDidStartBlock { log.append("did start") }
    operation.addWillFinishBlock { log.append("will finish") }
    operation.addDidFinishBlock { log.append("did finish") }
    operation.cancel()
    OperationQueue().addOperation(operation)
    await #expect(throws: CancellationError.self) { try await operation.untilFinished() }
    #expect(!operation.didExecute)
    #expect(operation.isCancelled && operation.isFinished)
    #expect(log.events == ["will finish", "did finish"])
    #expect(operation.startDate == nil)
    #expect(operation.finishDate != nil)
  }

  @Test func `events run in order, with dates from the context clock`() async throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 100))
    let log = EventLog()
    let operation = AdvancingOperation(clock: clock, by: 5)
    operation.context.operationClock = clock
    func record(_ event: String) -> @Sendable () -> Void {
      { [unowned operation] in
        log.append(
          "\(event) \(operation.startDate?.timeIntervalSince1970 ?? -1) "
            + "\(operation.finishDate?.timeIntervalSince1970 ?? -1) \(operation.executionTime)"
        )
      }
    }
    operation.addWillStartBlock(block: record("will start"))
    operation.addDidStartBlock(block: record("did start"))
    operation.addWillFinishBlock(block: record("will finish"))
    operation.addDidFinishBlock(block: record("did finish"))
    operation.addObserver(
      BlockObserver(
        willStart: { _ in log.append("observer will start") },
        didStart: { _ in log.append("observer did start") },
        willFinish: { _, _ in log.append("observer will finish") },
        didFinish: { _, _ in log.append("observer did finish") }
      )
    )
    OperationQueue().addOperation(operation)
    try await operation.untilFinished()
    #expect(
      log.events == [
        "will start -1.0 -1.0 0.0",
        "observer will start",
        "did start 100.0 -1.0 0.0",
        "observer did start",
        "will finish 100.0 -1.0 5.0",
        "observer will finish",
        "did finish 100.0 105.0 5.0",
        "observer did finish",
      ]
    )
    #expect(operation.executionTime == 5)
  }

  @Test func `the description shows the type, the name and the state`() async throws {
    let operation = TestOperation(name: "Doing some work...")
    #expect(operation.description == "TestOperation(name: 'Doing some work...', state: 0)")
    #expect(TestOperation().description == "TestOperation(name: 'nil', state: 0)")
    OperationQueue().addOperation(operation)
    try await operation.untilFinished()
    #expect(operation.description == "TestOperation(name: 'Doing some work...', state: 2)")
  }

  @Test func `an operation that does not override execute is reported and finishes`() {
    let operation = ConcurrentOperation()
    withKnownIssue {
      operation.start()
    } matching: { issue in
      issue.comments.contains(
        Comment(
          rawValue: OperationWarning.concurrentOperationExecuteNotOverridden("ConcurrentOperation")
            .message
        )
      )
    }
    #expect(operation.isFinished)
  }

  @Test func `a second start is reported and ignored`() {
    let operation = TestOperation()
    operation.start()
    let description = operation.description
    withKnownIssue {
      operation.start()
    } matching: { issue in
      issue.comments.contains(
        Comment(rawValue: OperationWarning.concurrentOperationStartedTwice(description).message)
      )
    }
    #expect(operation.executionCount == 1)
  }

  @Test func `cancelling with an error cancels and fails the operation`() async throws {
    let gate = Gate()
    let operation = TestOperation(gate: gate)
    let started = Latch()
    operation.addDidStartBlock { started.arrive() }
    OperationQueue().addOperation(operation)
    await started.wait(for: 1)
    operation.cancelWithError(TestError(id: 3))
    await #expect(throws: OperationErrors.self) { try await operation.untilFinished() }
    #expect(operation.isCancelled && operation.failed)
    #expect(operation.errors.map { $0 as? TestError } == [TestError(id: 3)])
  }

  @Test func `cancelling with a nil error adds no error`() async throws {
    let operation = TestOperation()
    operation.cancelWithError(nil)
    OperationQueue().addOperation(operation)
    await #expect(throws: CancellationError.self) { try await operation.untilFinished() }
    #expect(operation.isCancelled && !operation.failed && operation.errors.isEmpty)
  }

  @Test func `cancelling an executing operation leaves the finish to it`() async throws {
    let gate = Gate()
    let operation = FinishesOnGate(gate: gate)
    let started = Latch()
    operation.addDidStartBlock { started.arrive() }
    OperationQueue().addOperation(operation)
    await started.wait(for: 1)
    operation.cancel()
    #expect(operation.isCancelled && operation.isExecuting && !operation.isFinished)
    gate.open()
    await #expect(throws: CancellationError.self) { try await operation.untilFinished() }
    #expect(operation.isFinished)
  }

  @Test func `progress completes when the operation finishes`() async throws {
    let operation = TestOperation()
    #expect(operation.progress.fractionCompleted == 0)
    OperationQueue().addOperation(operation)
    try await operation.untilFinished()
    #expect(operation.progress.fractionCompleted == 1)
  }

  @Test func `the internal queue is made once and cancelled with the operation`() async throws {
    let operation = TestOperation()
    let queue = operation.internalQueue
    #expect(queue === operation.internalQueue)
    let child = TestOperation()
    queue.isSuspended = true
    queue.addOperation(child)
    operation.cancel()
    #expect(child.isCancelled)
    queue.isSuspended = false
    await #expect(throws: CancellationError.self) { try await child.untilFinished() }
    #expect(!child.didExecute)
  }
}

/// Finishes twice, with different errors.
private final class FinishingTwice: ConcurrentOperation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; `calls` is a lock.
  private let calls = Lock([[TestError]]())

  var finishedHookCalls: [[TestError]] {
    self.calls.withLock { $0 }
  }

  override func execute() {
    self.finish(TestError(id: 1))
    self.finish(TestError(id: 2))
  }

  override func finished(_ errors: [any Error]) {
    self.calls.withLock { $0.append(errors.compactMap { $0 as? TestError }) }
  }
}

/// Advances a manual clock while it executes.
private final class AdvancingOperation: ConcurrentOperation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; the stored properties are
  // `let`s of `Sendable` types.
  private let clock: ManualOperationClock
  private let seconds: TimeInterval

  init(clock: ManualOperationClock, by seconds: TimeInterval) {
    self.clock = clock
    self.seconds = seconds
  }

  override func execute() {
    self.clock.advance(by: self.seconds)
    self.finish()
  }
}

/// Finishes when a gate opens, whether or not it was cancelled.
private final class FinishesOnGate: ConcurrentOperation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; `gate` is a `let` of a
  // `Sendable` type.
  private let gate: Gate

  init(gate: Gate) {
    self.gate = gate
  }

  override func execute() {
    Task {
      await self.gate.wait()
      self.finish()
    }
  }
}
