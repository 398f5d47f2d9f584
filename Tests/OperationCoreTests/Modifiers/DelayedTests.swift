import OperationCore
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `Delayed tests` {
  @Test func `Waits On The Context Delayer Before Running`() async throws {
    let delayer = ManualDelayer()
    let counter = CallCounter()
    let runner = OperationRunner(
      operation: CountingOperation(counter: counter).delayed(by: .seconds(2)).delayer(delayer)
    )
    let task = Task { try await runner.run() }
    await delayer.waitForDelays(count: 1)
    #expect(counter.value == 0)
    #expect(delayer.resumeNext())
    #expect(try await task.value == 1)
    #expect(delayer.delays == [.seconds(2)])
  }

  @Test func `Records The Delay Before Every Run`() async throws {
    let delayer = RecordingDelayer()
    let counter = CallCounter()
    let runner = OperationRunner(
      operation: CountingOperation(counter: counter).delayed(by: .milliseconds(250))
        .delayer(delayer)
    )
    #expect(try await runner.run() == 1)
    #expect(try await runner.run() == 2)
    #expect(delayer.delays == [.milliseconds(250), .milliseconds(250)])
  }

  @Test(arguments: [OperationDuration.zero, .seconds(-1), .milliseconds(-5)])
  func `Non Positive Durations Run At Once Without Asking The Delayer`(
    duration: OperationDuration
  ) async throws {
    let delayer = RecordingDelayer()
    let counter = CallCounter()
    let runner = OperationRunner(
      operation: CountingOperation(counter: counter).delayed(by: duration).delayer(delayer)
    )
    #expect(try await runner.run() == 1)
    #expect(delayer.delays.isEmpty)
  }

  @Test func `Duration Overload Delays By The Same Amount`() async throws {
    let delayer = RecordingDelayer()
    let runner = OperationRunner(
      operation: CountingOperation(counter: CallCounter())
        .delayed(by: Duration.milliseconds(1500))
        .delayer(delayer)
    )
    _ = try await runner.run()
    #expect(delayer.delays == [.milliseconds(1500)])
  }

  @Test func `Cancellation During The Delay Throws Without Running`() async {
    let delayer = ManualDelayer()
    let counter = CallCounter()
    let runner = OperationRunner(
      operation: CountingOperation(counter: counter).delayed(by: .seconds(2)).delayer(delayer)
    )
    let task = Task { try await runner.run() }
    await delayer.waitForDelays(count: 1)
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(counter.value == 0)
    #expect(delayer.cancelledCount == 1)
  }

  @Test func `A Typed Failure That Cannot Hold Cancellation Runs The Operation`() async {
    let delayer = ManualDelayer()
    let runner = OperationRunner(
      operation: CancellationReportingOperation().delayed(by: .seconds(2)).delayer(delayer)
    )
    let task = Task { await runner.run() }
    await delayer.waitForDelays(count: 1)
    task.cancel()
    #expect(await task.value == "ran cancelled")
  }

  @Test func `A Delayed Query Keeps Its Path And Runs In A Store`() async throws {
    let delayer = RecordingDelayer()
    let query = TestQuery().delayed(by: .seconds(1))
    #expect(query.path == TestQuery().path)
    let store = OperationStore.detached(query: query, initialValue: nil)
    store.context.operationDelayer = delayer
    #expect(try await store.fetch() == 1)
    #expect(delayer.delays == [.seconds(1)])
  }
}

private struct CountingOperation: OperationRequest, Sendable {
  let counter: CallCounter

  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.counter.increment()
  }
}

private struct CancellationReportingOperation: OperationRequest, Sendable {
  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<String, Never>
  ) async -> String {
    Task.isCancelled ? "ran cancelled" : "ran"
  }
}
