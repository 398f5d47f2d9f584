import OperationCore
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `HandleEvents tests` {
  private typealias State = QueryState<Int, any Error>

  @Test func `Reports Start Yields Final Result And End In Order`() async throws {
    let recorder = OperationEventRecorder<State>()
    let reasons = Lock([OperationResultUpdateReason?]())
    var handler = recorder.eventHandler()
    let recordResult = handler.onResultReceived
    handler.onResultReceived = { result, context in
      reasons.withLock { $0.append(context.operationResultUpdateReason) }
      recordResult?(result, context)
    }
    let store = OperationStore.detached(
      query: YieldingQuery(yields: [.success(1), .failure(TestError())], finalValue: 3)
        .handleEvents(with: handler),
      initialValue: nil
    )
    try await store.fetch()
    #expect(
      recorder.events == [
        .runStarted, .resultReceived(.success(1)), .resultReceived(.failure(TestError())),
        .resultReceived(.success(3)), .runEnded,
      ]
    )
    #expect(reasons.withLock { $0 } == [.yieldedResult, .yieldedResult, .returnedFinalResult])
    #expect(store.currentValue == 3)
  }

  @Test func `Reports A Failure And Still Ends The Run`() async {
    let recorder = OperationEventRecorder<State>()
    let store = OperationStore.detached(
      query: FailingQuery().handleEvents(with: recorder.eventHandler()),
      initialValue: nil
    )
    await #expect(throws: TestError.self) { try await store.fetch() }
    #expect(recorder.events == [.runStarted, .resultReceived(.failure(TestError())), .runEnded])
  }
}
