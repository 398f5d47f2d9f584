import OperationSynchronization
import OperationTestSupport
import SharingOperation
import Testing

// Pins `SharedOperation.select`: a shared selection of the wrapper's store, with its scheduler.

@Suite(.timeLimit(.minutes(1))) struct `SharedOperation+Selection tests` {
  @Dependency(\.defaultOperationClient) private var client

  @Test func `Select Reads The Wrapper's Store`() async throws {
    let query = GatedQuery(value: 2)
    @SharedOperation(query) var value
    let isLoading = $value.select(\.isLoading)
    let doubled = $value.select { $0.currentValue.map { $0 * 2 } }

    #expect(isLoading.wrappedValue)
    #expect(doubled.wrappedValue == nil)
    #expect($value.subscriberCount == 3)

    query.gate.open()
    _ = try await $value.store.activeTasks.first?.runIfNeeded()
    #expect(!isLoading.wrappedValue)
    #expect(doubled.wrappedValue == 4)
  }

  @Test func `A Selection Is Not Told Of Changes Its Wrapper Is Told Of`() async throws {
    let store = OperationStore.detached(query: TestQuery(), initialValue: 1)
    @SharedOperation(store: store) var value
    let selection = $value.select { $0.currentValue }

    let changes = Lock(0)
    withObservationTracking {
      _ = selection.wrappedValue
    } onChange: {
      changes.withLock { $0 += 1 }
    }
    try await $value.fetch()
    #expect($value.valueUpdateCount == 1)
    #expect(changes.withLock { $0 } == 0)

    $value.withLock { $0 = 5 }
    #expect(changes.withLock { $0 } == 1)
    #expect(selection.wrappedValue == 5)
  }

  @Test func `A Selection Uses The Wrapper's Scheduler`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let value = SharedOperation(store: store, scheduler: NeverStateScheduler())
    let selection = value.select(\.currentValue)

    store.setResult(to: .success(3))
    #expect(selection.wrappedValue == nil)
  }

  @Test func `A Selection Stays On Its Store When The Wrapper Is Re-Pointed`() {
    let first = self.client.store(for: TestQuery(id: 1).disableAutomaticRunning())
    let second = self.client.store(for: TestQuery(id: 2).disableAutomaticRunning())
    @SharedOperation(store: first) var value
    let selection = $value.select(\.currentValue)

    $value = SharedOperation(store: second)
    #expect(first.subscriberCount == 1)
    second.setResult(to: .success(7))
    #expect(selection.wrappedValue == nil)
    first.setResult(to: .success(8))
    #expect(selection.wrappedValue == 8)
  }

  @Test func `A Selection Reads The Store, Not The Placeholder`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let value = SharedOperation(store: store, placeholder: .value(5))
    let selection = value.select(\.currentValue)

    #expect(value.wrappedValue == 5)
    #expect(selection.wrappedValue == nil)
  }
}
