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

  @Test func `Work That Ignores Cancellation Times Out At The Deadline`() async {
    let delayer = ManualDelayer()
    let operation = HeldOperation(opensGateOnCancel: false, checksCancellation: false)
    let runner = OperationRunner(
      operation: operation.timeout(after: .seconds(5)).delayer(delayer)
    )
    let task = Task { try await runner.run() }
    await operation.started.wait()
    await delayer.waitForDelays(count: 1)
    #expect(delayer.resumeNext())

    // NB: The gate is still closed, so the work cannot return before the run throws.
    await #expect(throws: OperationTimeoutError(duration: .seconds(5))) { try await task.value }
    #expect(operation.cancelled.isOpen)
    #expect(!operation.returned.isOpen)

    operation.gate.open()
    await operation.returned.wait()
  }

  @Test func `Waiting For Cancelled Work Throws Only After The Work Returned`() async {
    let delayer = ManualDelayer()
    let operation = HeldOperation(opensGateOnCancel: false, checksCancellation: false)
    let runner = OperationRunner(
      operation: operation.timeout(after: .seconds(5), waitsForCancelledWork: true)
        .delayer(delayer)
    )
    let task = Task { () async -> (timedOut: Bool, workReturned: Bool) in
      do {
        _ = try await runner.run()
        return (false, operation.returned.isOpen)
      } catch {
        return (error is OperationTimeoutError, operation.returned.isOpen)
      }
    }
    await operation.started.wait()
    await delayer.waitForDelays(count: 1)
    #expect(delayer.resumeNext())
    await operation.cancelled.wait()
    operation.gate.open()

    let outcome = await task.value
    #expect(outcome.timedOut)
    #expect(outcome.workReturned)
  }

  @Test func `Yields Of Abandoned Work Are Dropped And Its Result Discarded`() async throws {
    let delayer = ManualDelayer()
    let query = LateYieldingQuery()
    let store = OperationStore.detached(
      query: query.timeout(after: .seconds(5)),
      initialValue: nil
    )
    store.context.operationDelayer = delayer
    let fetch = Task { try await store.fetch() }
    await query.started.wait()
    await delayer.waitForDelays(count: 1)
    #expect(delayer.resumeNext())
    await #expect(throws: OperationTimeoutError(duration: .seconds(5))) { try await fetch.value }
    #expect(store.currentValue == 1)
    #expect(store.error is OperationTimeoutError)

    // NB: A yield that reached the store after the run failed would change the value and be
    // reported as a yield after return, an issue that fails this test.
    query.gate.open()
    await query.returned.wait()
    #expect(store.currentValue == 1)
    #expect(store.error is OperationTimeoutError)
    #expect(store.valueUpdateCount == 1)
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

@Suite struct `Timeout race state tests` {
  typealias State = TimeoutRaceState<String, String>

  @Test func `The Timer Firing First Cancels The Work And Times Out At Once`() {
    var state = State(waitsForCancelledWork: false)
    _ = state.attach(work: "work", timer: "timer")
    #expect(state.wait(with: "run").resume == nil)
    let fired = state.timerEnded(fired: true)
    #expect(fired.cancel == ["work"])
    #expect(fired.resume.map { $0.1 } == .timedOut)
    let late = state.workFinished()
    #expect(late.cancel.isEmpty)
    #expect(late.resume == nil)
    #expect(state.decision == .timedOut)
  }

  @Test func `Waiting For Cancelled Work Times Out Only When The Work Returns`() {
    var state = State(waitsForCancelledWork: true)
    _ = state.attach(work: "work", timer: "timer")
    _ = state.wait(with: "run")
    let fired = state.timerEnded(fired: true)
    #expect(fired.cancel == ["work"])
    #expect(fired.resume == nil)
    let finished = state.workFinished()
    #expect(finished.resume.map { $0.1 } == .timedOut)
  }

  @Test func `The Work Finishing First Stops The Timer Which Never Fires After`() {
    var state = State(waitsForCancelledWork: false)
    _ = state.attach(work: "work", timer: "timer")
    _ = state.wait(with: "run")
    let finished = state.workFinished()
    #expect(finished.cancel == ["timer"])
    #expect(finished.resume.map { $0.1 } == .workFinished)
    let fired = state.timerEnded(fired: true)
    #expect(fired.cancel.isEmpty)
    #expect(fired.resume == nil)
    #expect(!state.hasTimerFired)
  }

  @Test(arguments: [false, true])
  func `Caller Cancellation Stops Both And Waits For The Work`(waitsForCancelledWork: Bool) {
    var state = State(waitsForCancelledWork: waitsForCancelledWork)
    _ = state.attach(work: "work", timer: "timer")
    _ = state.wait(with: "run")
    let cancelled = state.callerCancelled()
    #expect(cancelled.cancel == ["work", "timer"])
    #expect(cancelled.resume == nil)
    #expect(state.timerEnded(fired: true).resume == nil)
    #expect(state.workFinished().resume.map { $0.1 } == .workFinished)
  }

  @Test func `Events Before The Tasks Are Attached Take Effect On Attaching`() {
    var state = State(waitsForCancelledWork: false)
    #expect(state.workFinished().cancel.isEmpty)
    #expect(state.attach(work: "work", timer: "timer").cancel == ["timer"])
    #expect(state.wait(with: "run").resume.map { $0.1 } == .workFinished)
  }
}

/// A query that yields 1, then waits for ``gate`` ignoring cancellation, yields 2 and returns 3.
private struct LateYieldingQuery: QueryRequest, Sendable {
  let gate = Gate()
  let started = Gate()
  let returned = Gate()

  var path: OperationPath { ["late-yielding-query"] }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    defer { self.returned.open() }
    continuation.yield(1)
    self.started.open()
    await self.gate.wait()
    continuation.yield(2)
    return 3
  }
}

/// An operation that waits for ``gate``, opening ``cancelled`` when its task is cancelled and
/// ``returned`` when it returns or throws.
private struct HeldOperation: OperationRequest, Sendable {
  let gate = Gate()
  let started = Gate()
  let cancelled = Gate()
  let returned = Gate()
  var opensGateOnCancel = true
  var checksCancellation = true
  var failure: TestError?

  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.started.open()
    defer { self.returned.open() }
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
