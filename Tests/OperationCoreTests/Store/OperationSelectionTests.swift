import Operation
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `OperationSelection tests` {
  @Test func `A Subscriber Receives The Selected Value At Once`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: 5)
    let values = ValueRecorder<Int?>()
    let subscription = store.select(\.currentValue).subscribe { values.record($0) }
    #expect(values.values == [5])
    subscription.cancel()
  }

  @Test func `State Changes That Keep The Selected Value Call No Subscriber`() async throws {
    let store = OperationStore.detached(query: TestQuery(), initialValue: 1)
    let values = ValueRecorder<Int?>()
    let states = ValueRecorder<Int>()
    let selection = store.select(\.currentValue)
    let subscriptions = (0..<3).map { _ in selection.subscribe { values.record($0) } }
    let stateSubscription = store.subscribe { states.record($0.valueUpdateCount) }

    // NB: The fetch returns 1, the value the store has: the state changes three times (loading,
    // the value, the end of loading), the selection never.
    try await store.fetch()
    #expect(states.values.count == 3)
    #expect(values.values == [1, 1, 1])

    store.currentValue = 2
    #expect(values.values == [1, 1, 1, 2, 2, 2])
    _ = subscriptions
    stateSubscription.cancel()
  }

  @Test func `A Derived Value Notifies Only When It Changes`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: 0)
    let values = ValueRecorder<Bool>()
    let subscription = store.select { ($0.currentValue ?? 0).isMultiple(of: 2) }.subscribe {
      values.record($0)
    }
    for value in [2, 4, 5, 7, 8] {
      store.currentValue = value
    }
    #expect(values.values == [true, false, true])
    subscription.cancel()
  }

  @Test func `The Selection Counts As One Subscriber Of The Store While It Has Subscribers`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let selection = store.select(\.isLoading)
    #expect(store.subscriberCount == 0)
    let first = selection.subscribe { _ in }
    let second = selection.subscribe { _ in }
    #expect(selection.subscriberCount == 2)
    #expect(store.subscriberCount == 1)
    first.cancel()
    #expect(store.subscriberCount == 1)
    second.cancel()
    #expect(store.subscriberCount == 0)
    #expect(selection.subscriberCount == 0)
  }

  @Test func `The First Subscriber Starts The Automatic Run Of A Client's Store`() async throws {
    let client = OperationClient()
    let query = GatedQuery()
    let store = client.store(for: query)
    let values = ValueRecorder<Int?>()
    let subscription = store.select(\.currentValue).subscribe { values.record($0) }
    await query.started.wait()
    #expect(query.fetchCount.value == 1)
    query.gate.open()
    _ = try await store.activeTasks.first?.runIfNeeded()
    #expect(values.values == [nil, 1])
    subscription.cancel()
  }

  @Test func `Without Subscribers The Value Is Read From The Current State`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: 3)
    let selection = store.select { ($0.currentValue ?? 0) * 10 }
    #expect(selection.value == 30)
    store.currentValue = 4
    #expect(selection.value == 40)
  }

  @Test func `A Selection Resubscribes After Its Last Subscriber Left`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: 1)
    let selection = store.select(\.currentValue)
    selection.subscribe { _ in }.cancel()
    store.currentValue = 2
    let values = ValueRecorder<Int?>()
    let subscription = selection.subscribe { values.record($0) }
    store.currentValue = 3
    #expect(values.values == [2, 3])
    #expect(store.subscriberCount == 1)
    subscription.cancel()
  }

  @Test func `The Closure Form Of Subscribe Receives The State Now And After Each Change`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: 1)
    let values = ValueRecorder<Int?>()
    let subscription = store.subscribe { state in values.record(state.currentValue) }
    store.currentValue = 2
    #expect(values.values == [1, 2])
    #expect(store.subscriberCount == 1)
    subscription.cancel()
    #expect(store.subscriberCount == 0)
  }
}
