import OperationCore
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `Timeout tests` {
  @Test func `Timer Firing First Cancels The Work And Throws A Timeout Error`() async {
    let delayer = ManualDelayer()
    let operation = HeldOperation()
    let runner = OperationRunner(
      operation: operation.timeout(after: .seconds(5)).delayer(delayer)
    )
    let task = Task { try await runner.run() }
    await operation.started.wait()
    await delayer.waitForDelays(count: 1)
    #expect(delayer.resumeNext())
    await #expect(throws: OperationTimeoutError(duration: .seconds(5))) { try await task.value }
    #expect(operation.cancelled.isOpen)
    #expect(delayer.delays == [.seconds(5)])
  }

  @Test func `Work That Ignores Cancellation Still Times Out`() async {
    let delayer = ManualDelayer()
    let operation = HeldOperation(opensGateOnCancel: false, checksCancellation: false)
    let runner = OperationRunner(
      operation: operation.timeout(after: .seconds(5)).delayer(delayer)
    )
    let task = Task { try await runner.run() }
    await operation.started.wait()
    await delayer.waitForDelays(count: 1)
    delayer.resumeNext()
    await operation.cancelled.wait()
    operation.gate.open()
    await #expect(throws: OperationTimeoutError(duration: .seconds(5))) { try await task.value }
  }

  @Test func `Work Finishing First Returns Its Value And Cancels The Timer`() async throws {
    let delayer = ManualDelayer()
    let operation = HeldOperation()
    let runner = OperationRunner(
      operation: operation.timeout(after: .seconds(5)).delayer(delayer)
    )
    let task = Task { try await runner.run() }
    await operation.started.wait()
    await delayer.waitForDelays(count: 1)
    operation.gate.open()
    #expect(try await task.value == 1)
    #expect(delayer.pendingCount == 0)
    #expect(delayer.cancelledCount == 1)
    #expect(!operation.cancelled.isOpen)
    #expect(delayer.resumeAll() == 0)
  }

  @Test func `Work Failing First Throws Its Error And Cancels The Timer`() async {
    let delayer = ManualDelayer()
    let operation = HeldOperation(failure: TestError())
    let runner = OperationRunner(
      operation: operation.timeout(after: .seconds(5)).delayer(delayer)
    )
    let task = Task { try await runner.run() }
    await operation.started.wait()
    await delayer.waitForDelays(count: 1)
    operation.gate.open()
    await #expect(throws: TestError()) { try await task.value }
    #expect(delayer.cancelledCount == 1)
  }

  @Test func `Caller Cancellation Throws Cancellation Error Not Timeout`() async {
    let delayer = ManualDelayer()
    let operation = HeldOperation()
    let runner = OperationRunner(
      operation: operation.timeout(after: .seconds(5)).delayer(delayer)
    )
    let task = Task { try await runner.run() }
    await operation.started.wait()
    await delayer.waitForDelays(count: 1)
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(operation.cancelled.isOpen)
    #expect(delayer.cancelledCount == 1)
  }

  @Test(arguments: [OperationDuration.zero, .seconds(-3)])
  func `Non Positive Durations Time Out At Once Without Running`(
    duration: OperationDuration
  ) async {
    let delayer = RecordingDelayer()
    let operation = HeldOperation()
    let runner = OperationRunner(operation: operation.timeout(after: duration).delayer(delayer))
    await #expect(throws: OperationTimeoutError(duration: duration)) { try await runner.run() }
    #expect(!operation.started.isOpen)
    #expect(delayer.delays.isEmpty)
  }

  @Test func `Duration Overload Waits The Same Amount`() async throws {
    let delayer = ManualDelayer()
    let operation = HeldOperation()
    let runner = OperationRunner(
      operation: operation.timeout(after: Duration.milliseconds(750)).delayer(delayer)
    )
    let task = Task { try await runner.run() }
    await delayer.waitForDelays(count: 1)
    operation.gate.open()
    _ = try await task.value
    #expect(delayer.delays == [.milliseconds(750)])
  }

  @Test func `Yields From A Timed Query Reach The Store`() async throws {
    let delayer = ManualDelayer()
    let query = YieldingQuery(yields: [.success(1), .success(2)], finalValue: 3)
      .timeout(after: .seconds(5))
    let store = OperationStore.detached(query: query, initialValue: nil)
    store.context.operationDelayer = delayer
    let recorder = OperationEventRecorder<QueryState<Int, any Error>>()
    #expect(try await store.fetch(handler: recorder.queryEventHandler()) == 3)
    #expect(recorder.states.map(\.currentValue) == [nil, 1, 2, 3])
    #expect(delayer.cancelledCount == 1)
  }

  @Test func `The Operation Runs On The Caller's Isolation`() async throws {
    let delayer = ManualDelayer()
    let host = Host()
    let runner = OperationRunner(
      operation: IsolationRecordingOperation().timeout(after: .seconds(5)).delayer(delayer)
    )
    #expect(try await host.run(runner) == ObjectIdentifier(host))
  }

  @Test func `Description Says How Long The Run Waited`() {
    #expect(
      OperationTimeoutError(duration: .seconds(10)).description
        == "The operation timed out after 10.0 seconds."
    )
    #expect(
      OperationTimeoutError(duration: .milliseconds(1500)).description
        == "The operation timed out after 1.5 seconds."
    )
  }
}

/// An operation that waits for ``gate``, opening ``cancelled`` when its task is cancelled.
private struct HeldOperation: OperationRequest, Sendable {
  let gate = Gate()
  let started = Gate()
  let cancelled = Gate()
  var opensGateOnCancel = true
  var checksCancellation = true
  var failure: TestError?

  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.started.open()
    let gate = self.gate
    let cancelled = self.cancelled
    let opensGateOnCancel = self.opensGateOnCancel
    await withTaskCancellationHandler {
      await gate.wait()
    } onCancel: {
      cancelled.open()
      if opensGateOnCancel {
        gate.open()
      }
    }
    if self.checksCancellation {
      try Task.checkCancellation()
    }
    if let failure = self.failure {
      throw failure
    }
    return 1
  }
}

private actor Host {
  func run<Operation: OperationRequest & Sendable>(
    _ runner: OperationRunner<Operation>
  ) async throws(Operation.Failure) -> Operation.Value {
    try await runner.run()
  }
}

/// An operation that returns the identity of the actor it was told to run on.
private struct IsolationRecordingOperation: OperationRequest, Sendable {
  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<ObjectIdentifier?, any Error>
  ) async throws -> ObjectIdentifier? {
    isolation.map { ObjectIdentifier($0) }
  }
}
