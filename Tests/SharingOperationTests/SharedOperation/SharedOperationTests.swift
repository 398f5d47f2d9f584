import Foundation
import OperationSynchronization
import OperationTestSupport
@_spi(Warnings) @_spi(Testing) import SharingOperation
import Testing

// Pins the behaviours of upstream's OperationKeyTests and OperationStateKeyTests (reference §17)
// that do not need SwiftUI, with Observation in place of Perception. Every test gets a fresh
// `@Dependency(\.defaultOperationClient)` from swift-dependencies.

@Suite struct `SharedOperation tests` {
  @Dependency(\.defaultOperationClient) private var client

  // MARK: - Initial state and automatic runs

  @Test func `The Value And Error Are Nil While The First Fetch Runs`() async throws {
    let query = GatedQuery()
    @SharedOperation(query) var value

    #expect(value == nil)
    #expect($value.error == nil)
    #expect($value.isLoading)
    #expect($value.status.isLoading)
    query.gate.open()
  }

  @Test func `Creating A Wrapper Fetches The Value`() async throws {
    let query = TestQuery()
    @SharedOperation(query) var value

    _ = try await self.client.store(for: query).activeTasks.first?.runIfNeeded()
    #expect(value == TestQuery.value)
    #expect($value.status.isSuccessful)
    #expect(!$value.isLoading)
  }

  @Test func `Creating A Wrapper Fetches The Error`() async throws {
    let query = FailingQuery()
    @SharedOperation(query) var value

    _ = try? await self.client.store(for: query).activeTasks.first?.runIfNeeded()
    #expect(value == nil)
    #expect($value.error as? TestError == TestError())
    #expect($value.status.isFailure)
  }

  @Test func `A Wrapper Starts From The Store's Current State`() async throws {
    let query = TestQuery().disableAutomaticRunning()
    try await self.client.store(for: query).fetch()

    @SharedOperation(query) var value
    #expect(value == TestQuery.value)
    #expect($value.valueUpdateCount == 1)
  }

  @Test func `Only One Task Runs While Loading The First Value`() async throws {
    let query = GatedQuery()
    @SharedOperation(query) var value

    #expect($value.activeTasks.count == 1)
    query.gate.open()
  }

  @Test func `A Wrapper Does Not Run When Automatic Running Is Off`() async throws {
    let store = self.client.store(for: TestQuery().disableAutomaticRunning())
    @SharedOperation(store: store) var value

    #expect(store.activeTasks.isEmpty)
    #expect(!$value.isLoading)
    #expect(value == nil)
  }

  @Test func `A Wrapper Is Loading At Once When Its Store Runs By Itself`() async throws {
    let query = GatedQuery()
    let store = OperationStore.detached(
      query: query.enableAutomaticRunning(onlyWhen: .always(true)),
      initialValue: nil
    )
    @SharedOperation(store: store) var value

    #expect($value.isLoading)
    query.gate.open()
    _ = try await store.activeTasks.first?.runIfNeeded()
    #expect(!$value.isLoading)
    #expect(value == 1)
  }

  // MARK: - Runs

  @Test func `Refetching Replaces A Value Set On The Store`() async throws {
    let query = TestQuery()
    @SharedOperation(query) var value
    let store = self.client.store(for: query)

    _ = try await store.activeTasks.first?.runIfNeeded()
    store.currentValue = nil
    #expect(value == nil)

    try await $value.fetch()
    #expect(value == TestQuery.value)
  }

  @Test func `Refetching Shows A New Error`() async throws {
    let query = FailingQuery()
    query.fails.withLock { $0 = false }
    @SharedOperation(query) var value

    _ = try await self.client.store(for: query).activeTasks.first?.runIfNeeded()
    #expect($value.error == nil)

    query.fails.withLock { $0 = true }
    await #expect(throws: TestError.self) {
      try await $value.fetch()
    }
    #expect($value.error as? TestError == TestError())
    #expect(value == 1)
  }

  @Test func `The Wrapper Is Loading When Another Subscriber Sees A Run Start`() async throws {
    let store = self.client.store(for: TestQuery().disableAutomaticRunning())
    @SharedOperation(store: store) var value
    #expect(!$value.isLoading)

    let sawLoading = Lock<Bool?>(nil)
    let subscription = store.subscribe(
      with: OperationEventHandler(onRunStarted: { [value = $value] _ in
        sawLoading.withLock { $0 = value.isLoading }
      })
    )
    try await store.fetch()
    subscription.cancel()
    #expect(sawLoading.withLock { $0 } == true)
    #expect(!$value.isLoading)
  }

  @Test func `The Wrapper Shows Yielded Values While Still Loading`() async throws {
    let query = GatedQuery(yields: [10, 20], value: 30)
    let store = OperationStore.detached(
      query: query.enableAutomaticRunning(onlyWhen: .always(true)),
      initialValue: nil
    )
    @SharedOperation(store: store) var value
    #expect(value == nil)

    await query.started.wait()
    #expect(value == 20)
    #expect($value.isLoading)

    query.gate.open()
    _ = try await store.activeTasks.first?.runIfNeeded()
    #expect(value == 30)
    #expect(!$value.isLoading)
  }

  @Test func `Load Runs The Operation`() async throws {
    let query = TestQuery().disableAutomaticRunning()
    @SharedOperation(query) var value

    try await $value.load()
    #expect(value == TestQuery.value)
  }

  @Test func `Run And Run Task Run The Operation`() async throws {
    let query = TestQuery()
    @SharedOperation(query.disableAutomaticRunning()) var value

    let recorded = Lock(0)
    let result = try await $value.run(
      handler: OperationEventHandler(onRunEnded: { _ in recorded.withLock { $0 += 1 } })
    )
    #expect(result == TestQuery.value)
    #expect(recorded.withLock { $0 } == 1)

    let task = $value.runTask()
    #expect($value.isLoading)
    #expect(try await task.runIfNeeded() == TestQuery.value)
    #expect(!$value.isLoading)
    #expect(query.fetches.value == 2)
  }

  @Test func `A Race Between A Main Actor Wrapper And A Store Fetch Is Safe`() async throws {
    let client = self.client
    let wrapperFetch = Task { @MainActor in
      @SharedOperation(TestQuery(), client: client) var value
      return try await $value.fetch()
    }
    let storeFetch = Task {
      try await client.store(for: TestQuery()).fetch()
    }
    let (first, second) = try await (wrapperFetch.value, storeFetch.value)
    #expect(first == TestQuery.value)
    #expect(second == TestQuery.value)
  }

  // MARK: - Changing state

  @Test func `With Lock Writes The Value To The Store`() async throws {
    let query = TestQuery().disableAutomaticRunning()
    @SharedOperation(query) var value

    let returned = $value.withLock { value in
      value = TestQuery.value + 1
      return "done"
    }
    #expect(returned == "done")
    #expect(value == TestQuery.value + 1)
    #expect(self.client.store(for: query).currentValue == value)
  }

  @Test func `With Lock Leaves The Store Alone When Its Body Throws`() async throws {
    @SharedOperation(TestQuery().disableAutomaticRunning()) var value

    #expect(throws: TestError.self) {
      try $value.withLock { value in
        value = 5
        throw TestError()
      }
    }
    #expect(value == nil)
    #expect($value.valueUpdateCount == 0)
  }

  @Test func `With Lock Shows The Value At Once Whatever The Scheduler`() async throws {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let value = SharedOperation(store: store, scheduler: NeverStateScheduler())

    value.withLock { $0 = 3 }
    #expect(value.wrappedValue == 3)
    store.currentValue = 4
    #expect(value.wrappedValue == 3)
  }

  @Test func `With Exclusive Access Runs Its Body Under The Store's Lock`() async throws {
    @SharedOperation(TestQuery().disableAutomaticRunning()) var value

    let result = $value.withExclusiveAccess { value in
      value.withLock { $0 = ($0 ?? 0) + 1 }
      return value.wrappedValue
    }
    #expect(result == 1)
    #expect(value == 1)
  }

  @Test func `Set Result And Reset State Go Through The Store`() async throws {
    let query = TestQuery().disableAutomaticRunning()
    @SharedOperation(query) var value
    let store = self.client.store(for: query)

    $value.setResult(to: .success(7))
    #expect(value == 7)
    #expect(store.currentValue == 7)

    $value.setResult(to: .failure(TestError()))
    #expect($value.error as? TestError == TestError())

    $value.resetState()
    #expect(value == nil)
    #expect($value.error == nil)
    #expect(store.valueUpdateCount == 0)
  }

  // MARK: - Members

  @Test func `Dynamic Member Lookup Reads The State And The Store`() async throws {
    let query = TestQuery(id: 1).disableAutomaticRunning()
    @SharedOperation(query) var value
    let store = self.client.store(for: query)

    #expect($value.isBacked)
    #expect($value.store === store)
    #expect($value.path == store.path)
    #expect($value.subscriberCount == 1)
    #expect($value.isStale)
    #expect(!$value.isAutomaticRunningEnabled)
    #expect($value.currentValue == nil)
    #expect($value.initialValue == nil)
    #expect($value.state.currentValue == nil)

    var context = $value.context
    context.operationMaxRetries = 9
    $value.context = context
    #expect(store.context.operationMaxRetries == 9)
  }

  @Test func `Shared Operations Are Equal When Their Values Are`() async throws {
    let first = OperationStore.detached(mutation: EchoMutation())
    let second = OperationStore.detached(mutation: EchoMutation())
    @SharedOperation(store: first) var firstValue
    @SharedOperation(store: second) var secondValue
    #expect($firstValue == $secondValue)

    try await $firstValue.mutate(with: "blob")
    #expect($firstValue != $secondValue)

    try await $secondValue.mutate(with: "blob")
    #expect($firstValue == $secondValue)
  }

  // MARK: - Sharing

  @Test func `Two Wrappers Share State And Are Separate Subscribers`() async throws {
    let query = TestQuery().disableAutomaticRunning()
    @SharedOperation(query) var first
    @SharedOperation(query) var second

    #expect($first.store === $second.store)
    #expect(self.client.store(for: query).subscriberCount == 2)

    $first.withLock { $0 = TestQuery.value + 1 }
    #expect(first == TestQuery.value + 1)
    #expect(second == first)
  }

  @Test func `Two Wrappers Run Their Shared Operation Once`() async throws {
    let query = TestQuery()
    @SharedOperation(query) var first
    @SharedOperation(query) var second

    _ = try await self.client.store(for: query).activeTasks.first?.runIfNeeded()
    #expect(query.fetches.value == 1)
    #expect(first == TestQuery.value)
    #expect(second == TestQuery.value)
  }

  @Test func `A Wrapper Given A Client Uses That Client's Store`() async throws {
    let client = OperationClient()
    let query = TestQuery().disableAutomaticRunning()
    @SharedOperation(query, client: client) var value

    #expect($value.store === client.store(for: query))
    #expect(self.client.store(for: query).subscriberCount == 0)
  }

  // MARK: - Backing

  @Test func `A Wrapper Created From An Operation Is Backed`() {
    @SharedOperation(TestQuery().disableAutomaticRunning()) var value
    #expect($value.isBacked)
  }

  @Test func `An Unbacked Query Holds Its Value`() {
    @SharedOperation<TestQuery.State> var value = TestQuery.value
    #expect(value == TestQuery.value)
    #expect(!$value.isBacked)
    #expect(!$value.isLoading)
  }

  @Test func `An Unbacked Wrapper Holds Its Initial State`() {
    let value = SharedOperation(initialState: QueryState<Int, any Error>(initialValue: 3))
    #expect(value.wrappedValue == 3)
    #expect(!value.isBacked)
  }

  @Test func `Running An Unbacked Wrapper Reports An Issue And Throws`() async throws {
    @SharedOperation<TestQuery.State> var value = TestQuery.value

    await withKnownIssue {
      await #expect(throws: UnbackedSharedOperationError.self) {
        try await $value.fetch()
      }
    } matching: { issue in
      issue.comments.contains(
        Comment(
          rawValue: OperationWarning.unbackedSharedOperationRun(stateType: TestQuery.State.self)
            .message
        )
      )
    }
    #expect($value.error is UnbackedSharedOperationError)
    #expect(value == TestQuery.value)
  }

  @Test func `Assigning A Backed Wrapper Re-Points Every Copy`() async throws {
    @SharedOperation<TestQuery.State> var value = 5
    let copy = $value

    let query = TestQuery().disableAutomaticRunning()
    $value = SharedOperation(query)
    #expect($value.isBacked)
    #expect(copy.isBacked)
    #expect(copy.store === self.client.store(for: query))
    #expect(value == nil)

    try await copy.fetch()
    #expect(value == TestQuery.value)
  }

  @Test @MainActor func `Assigning A Backed Wrapper Is Observable`() async {
    let model = IsBackedModel()

    await confirmation { changed in
      withObservationTracking {
        _ = model.$value.isBacked
      } onChange: {
        changed()
      }
      model.back()
    }
    #expect(model.$value.isBacked)
  }

  // MARK: - Lifetime

  @Test func `Releasing The Last Copy Ends The Subscription And Frees Everything`() async throws {
    weak var weakStore: OperationStore<TestQuery.State>?
    weak var weakHolder: AnyObject?
    var copy: SharedOperation<TestQuery.State>?
    do {
      let store = OperationStore.detached(
        query: TestQuery().enableAutomaticRunning(onlyWhen: .always(true)),
        initialValue: nil
      )
      weakStore = store
      let value = SharedOperation(store: store)
      weakHolder = value._subscriptionHolder
      _ = try await store.activeTasks.first?.runIfNeeded()
      #expect(value.wrappedValue == TestQuery.value)
      copy = value
    }
    #expect(weakStore?.subscriberCount == 1)
    #expect(weakHolder != nil)
    #expect(copy?.isBacked == true)

    copy = nil
    #expect(weakHolder == nil)
    #expect(weakStore == nil)
  }

  @Test func `Releasing A Wrapper Unsubscribes From A Store That Lives On`() async throws {
    let store = self.client.store(for: TestQuery().disableAutomaticRunning())
    weak var weakHolder: AnyObject?
    do {
      let value = SharedOperation(store: store)
      weakHolder = value._subscriptionHolder
      #expect(store.subscriberCount == 1)
    }
    #expect(weakHolder == nil)
    #expect(store.subscriberCount == 0)
  }

  @Test func `Re-Pointing A Wrapper Ends Its Old Subscription`() async throws {
    let first = self.client.store(for: TestQuery(id: 1).disableAutomaticRunning())
    let second = self.client.store(for: TestQuery(id: 2).disableAutomaticRunning())
    @SharedOperation(store: first) var value
    #expect(first.subscriberCount == 1)

    $value = SharedOperation(store: second)
    #expect(first.subscriberCount == 0)
    #expect(second.subscriberCount == 1)
  }
}

/// A model whose shared operation starts unbacked, as in upstream's `isBacked` observation test.
@MainActor
@Observable
private final class IsBackedModel {
  @ObservationIgnored
  @SharedOperation<EchoMutation.State> var value = "blob"

  func back() {
    self.$value = SharedOperation(wrappedValue: nil, EchoMutation())
  }
}

/// A scheduler that never applies changes, to tell a wrapper's own updates from the store's.
struct NeverStateScheduler: SharedOperationStateScheduler, Sendable {
  func schedule(work: @escaping @Sendable () -> Void) {}
}
