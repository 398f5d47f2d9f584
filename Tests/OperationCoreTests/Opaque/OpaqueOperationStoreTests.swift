import OperationCore
import OperationSynchronization
import Testing

@Suite struct `OpaqueOperationStore tests` {
  @Test func `Current Value Reads The Base Store`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: 3)
    let opaque = OpaqueOperationStore(erasing: store)
    #expect(opaque.currentValue as? Int == 3)
    store.currentValue = 4
    #expect(opaque.currentValue as? Int == 4)
    #expect(opaque.valueUpdateCount == 1)
  }

  @Test func `Unchecked Set Current Value Sets The Base Store`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let opaque = OpaqueOperationStore(erasing: store)
    opaque.uncheckedSetCurrentValue(4)
    #expect(store.currentValue == 4)
    #expect(store.valueUpdateCount == 1)
  }

  @Test func `Unchecked Set Result Sets The Base Store Error`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let opaque = OpaqueOperationStore(erasing: store)
    opaque.uncheckedSetResult(to: .failure(TestError()))
    #expect(store.error as? TestError == TestError())
    #expect(opaque.error as? TestError == TestError())
  }

  @Test func `Run Runs The Base Operation`() async throws {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let opaque = OpaqueOperationStore(erasing: store)
    let results = Lock([Int]())
    let value = try await opaque.run(
      handler: OpaqueOperationEventHandler(onResultReceived: { result, _ in
        if case .success(let value as Int) = result {
          results.withLock { $0.append(value) }
        }
      })
    )
    #expect(value as? Int == 1)
    #expect(store.currentValue == 1)
    #expect(results.withLock { $0 } == [1])
  }

  @Test func `Run Task Creates A Task Of The Base Store`() async throws {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let opaque = OpaqueOperationStore(erasing: store)
    let task = opaque.runTask()
    #expect(store.isLoading)
    #expect(try await task.runIfNeeded() as? Int == 1)
    #expect(store.currentValue == 1)
  }

  @Test func `Subscribe Delivers Erased States`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let opaque = OpaqueOperationStore(erasing: store)
    let values = Lock([Int?]())
    let subscription = opaque.subscribe(
      with: OpaqueOperationEventHandler(onStateChanged: { state, _ in
        values.withLock { $0.append(state.currentValue as? Int) }
      })
    )
    #expect(store.subscriberCount == 1)
    #expect(opaque.subscriberCount == 1)
    store.currentValue = 6
    #expect(values.withLock { $0 } == [nil, 6])
    subscription.cancel()
    #expect(store.subscriberCount == 0)
  }

  @Test func `Base Casts Back To The Typed Store`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let opaque = OpaqueOperationStore(erasing: store)
    #expect((opaque.base as? OperationStore<QueryState<Int, any Error>>) === store)
    #expect(opaque.base as? OperationStore<QueryState<String, any Error>> == nil)
    #expect(opaque.path == store.path)
  }

  @Test func `Reset State Resets The Base Store`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: 2)
    let opaque = OpaqueOperationStore(erasing: store)
    store.currentValue = 5
    opaque.resetState()
    #expect(store.currentValue == 2)
    #expect(store.valueUpdateCount == 0)
  }

  @Test func `Context Writes Reach The Base Store`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let opaque = OpaqueOperationStore(erasing: store)
    opaque.context.operationTaskConfiguration.name = "Opaque"
    #expect(store.context.operationTaskConfiguration.name == "Opaque")
  }
}
