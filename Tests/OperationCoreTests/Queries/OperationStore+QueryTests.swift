import OperationCore
import OperationTestSupport
import Testing

@Suite struct `OperationStore+Query tests` {
  private typealias State = QueryState<Int, any Error>

  @Test func `Detached With An Initial Value Starts From It`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: 8)
    #expect(store.currentValue == 8)
    #expect(store.initialValue == 8)
    #expect(store.valueUpdateCount == 0)
    #expect(store.path == TestQuery().path)
  }

  @Test func `Detached With An Initial State Starts From It`() {
    let store = OperationStore.detached(
      query: TestQuery(),
      initialState: QueryState(initialValue: 2)
    )
    #expect(store.currentValue == 2)
  }

  @Test func `Fetch Handler Receives Run Events Without An Initial State`() async throws {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let recorder = OperationEventRecorder<State>()
    try await store.fetch(handler: recorder.queryEventHandler())
    #expect(
      recorder.events == [
        .stateChanged, .runStarted, .resultReceived(.success(1)), .runEnded, .stateChanged,
      ]
    )
    #expect(recorder.states.map(\.isLoading) == [true, false])
  }

  @Test func `Fetch Handler Receives A Failure`() async {
    let store = OperationStore.detached(query: FailingQuery(), initialValue: nil)
    let recorder = OperationEventRecorder<State>()
    await #expect(throws: TestError()) {
      try await store.fetch(handler: recorder.queryEventHandler())
    }
    #expect(recorder.events.contains(.resultReceived(.failure(TestError()))))
  }

  @Test func `Fetch Task Does Not Start Until Awaited`() async throws {
    let query = GatedQuery()
    let store = OperationStore.detached(query: query, initialValue: nil)
    let task = store.fetchTask()
    #expect(!task.hasStarted)
    #expect(query.fetchCount.value == 0)
    query.gate.open()
    #expect(try await task.runIfNeeded() == 1)
    #expect(query.fetchCount.value == 1)
  }

  @Test func `Subscribe With A Query Handler Counts As A Subscriber`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let recorder = OperationEventRecorder<State>()
    let subscription = store.subscribe(with: recorder.queryEventHandler())
    #expect(store.subscriberCount == 1)
    #expect(recorder.events == [.stateChanged])
    subscription.cancel()
    #expect(store.subscriberCount == 0)
  }
}
