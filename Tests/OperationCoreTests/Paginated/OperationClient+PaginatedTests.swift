import IdentifiedCollections
import Operation
import OperationCore
import OperationTestSupport
import Testing

@Suite struct `OperationClient+Paginated tests` {
  @Test func `Returns The Same Store For A Paginated Request`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let query = TestPaginated([0: "a"])
    let store = client.store(for: query)
    #expect(client.store(for: query) === store)
    #expect(store.initialPageId == 0)
  }

  @Test func `Creates A Store With Initial Pages`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let store = client.store(for: TestPaginated(), initialValue: [Page(id: 3, value: "c")])
    #expect(store.currentValue == [Page(id: 3, value: "c")])
    #expect(store.initialValue == [Page(id: 3, value: "c")])
  }

  @Test func `Creates A Store For A Paginated Request With A Default Value`() async throws {
    let client = OperationClient(storeCreator: .defaultTesting)
    let query = TestPaginated([0: "a"])
    let store = client.store(for: query.defaultValue([Page(id: 9, value: "default")]))
    #expect(store.currentValue == [Page(id: 9, value: "default")])

    try await store.fetchNextPage()

    #expect(store.currentValue == [Page(id: 0, value: "a")])
  }

  @Test func `Client Stores Run Paginated Requests Automatically On Subscribe`() async throws {
    let gate = Gate()
    let client = OperationClient(storeCreator: .defaultTesting)
    let store = client.store(for: TestPaginated([0: "a"], gate: gate))

    let subscription = store.subscribe(with: PaginatedEventHandler())
    let task = try #require(store.initialPageActiveTasks.first)
    gate.open()
    _ = try await task.runIfNeeded()

    #expect(store.currentValue == [Page(id: 0, value: "a")])
    subscription.cancel()
  }

  @Test func `Creates Paginated Stores Inside With Stores`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let query = TestPaginated([0: "a"])
    let defaulted = TestPaginated([0: "b"])
    client.withStores(matching: []) { stores, createStore in
      let store = createStore(for: query, initialValue: [Page(id: 1, value: "one")])
      stores.update(OpaqueOperationStore(erasing: store))
      let defaultStore = createStore(for: defaulted.defaultValue([Page(id: 2, value: "two")]))
      stores.update(OpaqueOperationStore(erasing: defaultStore))
    }

    #expect(client.store(for: query).currentValue == [Page(id: 1, value: "one")])
    let defaultStore = client.store(for: defaulted.defaultValue([]))
    #expect(defaultStore.currentValue == [Page(id: 2, value: "two")])
  }
}
