import OperationSynchronization
import OperationTestSupport
import SharingOperation
import Testing

// Pins issue 16, item 4: a shared selection's observers hear only of changes to the selected
// value, it is one subscriber of its store, and its subscription lives as long as its last copy.

@Suite(.timeLimit(.minutes(1))) struct `SharedSelection tests` {
  @Dependency(\.defaultOperationClient) private var client

  // MARK: - Observation

  @Test func `Observers Are Not Told Of State Changes That Keep The Selected Value`() async throws {
    let query = GatedQuery(value: 1)
    let store = OperationStore.detached(query: query, initialValue: 1)
    let selection = SharedSelection(store: store) { $0.currentValue }
    let operation = SharedOperation(store: store)

    let selectionChanges = Lock(0)
    let operationChanges = Lock(0)
    withObservationTracking {
      _ = selection.wrappedValue
    } onChange: {
      selectionChanges.withLock { $0 += 1 }
    }
    withObservationTracking {
      _ = operation.wrappedValue
    } onChange: {
      operationChanges.withLock { $0 += 1 }
    }

    let task = store.fetchTask()
    #expect(store.isLoading)
    // NB: The shared operation on the same store is the control: it was told of the change.
    #expect(operationChanges.withLock { $0 } == 1)
    #expect(selectionChanges.withLock { $0 } == 0)

    query.gate.open()
    #expect(try await task.runIfNeeded() == 1)
    #expect(!store.isLoading)
    #expect(store.valueUpdateCount == 1)
    #expect(selectionChanges.withLock { $0 } == 0)
    #expect(selection.wrappedValue == 1)
  }

  @Test func `Observers Are Told When The Selected Value Changes`() async {
    let store = OperationStore.detached(query: TestQuery(), initialValue: 1)
    let selection = SharedSelection(store: store) { $0.currentValue }

    await confirmation { changed in
      withObservationTracking {
        _ = selection.wrappedValue
      } onChange: {
        changed()
      }
      store.setResult(to: .success(2))
    }
    #expect(selection.wrappedValue == 2)
  }

  @Test func `A Key Path Selection Follows Its Member`() async throws {
    let query = GatedQuery(value: 4)
    let store = OperationStore.detached(query: query, initialValue: nil)
    let isLoading = SharedSelection(store: store, \.isLoading)
    #expect(!isLoading.wrappedValue)

    let task = await confirmation { changed in
      withObservationTracking {
        _ = isLoading.wrappedValue
      } onChange: {
        changed()
      }
      return store.fetchTask()
    }
    #expect(isLoading.wrappedValue)

    query.gate.open()
    _ = try await task.runIfNeeded()
    #expect(!isLoading.wrappedValue)
  }

  @Test @MainActor func `A Model's Selection Tells Only Of Title Changes`() async {
    let store = OperationStore.detached(query: TestQuery(), initialValue: 1)
    let model = TitleModel(store: store)
    #expect(model.title == "Post 1")

    let changes = Lock(0)
    withObservationTracking {
      _ = model.title
    } onChange: {
      changes.withLock { $0 += 1 }
    }
    store.setResult(to: .success(1))
    #expect(changes.withLock { $0 } == 0)

    store.setResult(to: .success(2))
    #expect(changes.withLock { $0 } == 1)
    #expect(model.title == "Post 2")
  }

  @Test func `The Property Wrapper Reads The Selection`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: 3)
    @SharedSelection(store: store, \.currentValue) var value
    #expect(value == 3)
    #expect($value.wrappedValue == 3)

    store.setResult(to: .success(4))
    #expect(value == 4)

    @SharedSelection(store: store, { ($0.currentValue ?? 0) * 2 }) var doubled
    #expect(doubled == 8)
  }

  // MARK: - Operations and clients

  @Test func `A Selection Of A Query Starts Its Store's Automatic Run`() async throws {
    let query = GatedQuery(value: 6)
    let isLoading = SharedSelection(query, \.isLoading)
    let store = self.client.store(for: query)

    #expect(isLoading.wrappedValue)
    #expect(store.subscriberCount == 1)

    let copy = isLoading
    #expect(store.subscriberCount == 1)

    query.gate.open()
    _ = try await store.activeTasks.first?.runIfNeeded()
    #expect(!isLoading.wrappedValue)
    #expect(!copy.wrappedValue)
    #expect(store.currentValue == 6)
  }

  @Test func `A Selection Given A Client Uses That Client's Store`() async throws {
    let client = OperationClient()
    let query = TestQuery().disableAutomaticRunning()
    let value = SharedSelection(query, client: client) { $0.currentValue }

    #expect(client.store(for: query).subscriberCount == 1)
    #expect(self.client.store(for: query).subscriberCount == 0)

    try await client.store(for: query).fetch()
    #expect(value.wrappedValue == TestQuery.value)
  }

  @Test func `A Selection Of Any Operation Takes Its Initial State`() async throws {
    let mutation = EchoMutation()
    let isLoading = SharedSelection(
      mutation,
      initialState: MutationState(initialValue: nil),
      \.isLoading
    )
    let value = SharedSelection(mutation, initialState: MutationState(initialValue: nil)) {
      $0.currentValue
    }
    let store = self.client.store(for: mutation)
    #expect(store.subscriberCount == 2)
    #expect(!isLoading.wrappedValue)

    try await store.mutate(with: "blob")
    #expect(value.wrappedValue == "blob")
  }

  // MARK: - Lifetime

  @Test func `Releasing The Last Copy Ends The Store Subscription`() {
    let store = self.client.store(for: TestQuery().disableAutomaticRunning())
    var copies = [SharedSelection(store: store) { $0.currentValue }]
    copies.append(copies[0])
    #expect(store.subscriberCount == 1)

    copies.removeLast()
    #expect(store.subscriberCount == 1)

    copies.removeLast()
    #expect(store.subscriberCount == 0)
  }
}

/// A model that shows a post's title, as in the ObservingState article.
@MainActor
@Observable
private final class TitleModel {
  @ObservationIgnored
  @SharedSelection<Int?> var id: Int?

  init(store: OperationStore<TestQuery.State>) {
    self._id = SharedSelection(store: store) { $0.currentValue }
  }

  var title: String {
    self.id.map { "Post \($0)" } ?? "Loading…"
  }
}
