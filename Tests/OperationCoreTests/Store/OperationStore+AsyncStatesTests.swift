import OperationCore
import OperationTestSupport
import Testing

@Suite struct `OperationStore+AsyncStates tests` {
  @Test func `States Yield Idle Then Loading Then Value`() async throws {
    let query = GatedQuery()
    let store = OperationStore.detached(query: query, initialValue: nil)
    var statuses = [OperationStatus<Int, any Error>]()
    var fetch: Task<Int, any Error>?

    for await element in store.states {
      statuses.append(element.state.status)
      if statuses.count == 1 {
        fetch = Task { try await store.fetch() }
      } else if statuses.count == 2 {
        query.gate.open()
      } else {
        break
      }
    }

    #expect(try await fetch?.value == 1)
    #expect(statuses.count == 3)
    #expect(statuses.first?.isIdle == true)
    #expect(statuses.dropFirst().first?.isLoading == true)
    #expect(statuses.last?.resultValue == 1)
  }

  @Test func `Iterating Subscribes Until The Iterator Ends`() async {
    let store = OperationStore.detached(query: TestQuery(), initialValue: 4)
    var iterator: OperationStore<QueryState<Int, any Error>>.AsyncStates.AsyncIterator? =
      store.states.makeAsyncIterator()
    #expect(store.subscriberCount == 1)
    #expect(await iterator?.next()?.state.currentValue == 4)
    iterator = nil
    #expect(store.subscriberCount == 0)
  }

  @Test func `A Slow Consumer Gets The First State Then Only The Newest Changes`() async {
    let limit = OperationStore<QueryState<Int, any Error>>.AsyncStates.bufferedChangeLimit
    let store = OperationStore.detached(query: TestQuery(), initialValue: 0)
    var iterator = store.states.makeAsyncIterator()
    for value in 1...(limit + 5) {
      store.currentValue = value
    }

    #expect(await iterator.next()?.state.currentValue == 0)
    for value in 6...(limit + 5) {
      #expect(await iterator.next()?.state.currentValue == value)
    }

    store.currentValue = 100
    #expect(await iterator.next()?.state.currentValue == 100)
  }

  @Test func `A Fetch Seen From Behind Still Shows Loading Then The Value`() async throws {
    let query = GatedQuery()
    let store = OperationStore.detached(query: query, initialValue: nil)
    var iterator = store.states.makeAsyncIterator()
    let fetch = Task { try await store.fetch() }
    await query.started.wait()
    query.gate.open()
    _ = try await fetch.value

    #expect(await iterator.next()?.state.status.isIdle == true)
    #expect(await iterator.next()?.state.isLoading == true)
    #expect(await iterator.next()?.state.currentValue == 1)
  }

  @Test func `A Consumer That Keeps Up Gets Every Change`() async {
    let store = OperationStore.detached(query: TestQuery(), initialValue: 0)
    var iterator = store.states.makeAsyncIterator()
    #expect(await iterator.next()?.state.currentValue == 0)
    for value in 1...3 {
      store.currentValue = value
      #expect(await iterator.next()?.state.currentValue == value)
    }
  }
}
