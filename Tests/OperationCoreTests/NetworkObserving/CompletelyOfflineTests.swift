import OperationCore
import OperationTestSupport
import Testing

@Suite struct `CompletelyOffline tests` {
  @Test func `Completely Offline Removes The Network Requirement And Retries`() {
    var context = OperationContext()
    TestQuery().completelyOffline().retry(limit: 3).backoff(.linear(.seconds(1)))
      .setup(context: &context)
    #expect(context.satisfiedConnectionStatus == .disconnected)
    #expect(context.operationMaxRetries == 0)
    #expect(context.operationBackoffFunction(1) == .zero)
    #expect(
      NetworkConnectionRunSpecification(observer: MockNetworkObserver(initialStatus: .disconnected))
        .isSatisfied(in: context)
    )
  }

  @Test func `Completely Offline False Changes Nothing`() {
    var context = OperationContext()
    context.operationMaxRetries = 2
    TestQuery().completelyOffline(false).setup(context: &context)
    #expect(context.satisfiedConnectionStatus == .connected)
    #expect(context.operationMaxRetries == 2)
    #expect(context.operationBackoffFunction(1) == .seconds(1))
  }

  @Test func `An Outer Retry Runs A Completely Offline Operation Once`() async {
    let attempts = CallCounter()
    let query = ContextReadingQuery<Int> { _ in attempts.increment() }
    let runner = OperationRunner(
      operation: CountingFailure(base: query).completelyOffline().retry(limit: 3)
        .delayer(RecordingDelayer())
    )
    await #expect(throws: TestError.self) { try await runner.run() }
    #expect(attempts.value == 1)
  }
}

/// Runs its base, then throws, so every attempt is counted and fails.
private struct CountingFailure: QueryRequest {
  let base: ContextReadingQuery<Int>

  var path: OperationPath { self.base.path }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    _ = self.base.read(context)
    throw TestError()
  }
}
