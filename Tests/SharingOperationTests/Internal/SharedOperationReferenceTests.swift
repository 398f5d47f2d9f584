import OperationTestSupport
import SharingOperation
import Testing

// The Observation contract of `SharedOperation` (implemented by SharedOperationReference and
// SharedOperationBox): every member that reads state registers a dependency that a change of the
// store's state fires, and a main-actor wrapper tells its observers on the main actor.

@Suite struct `SharedOperationReference tests` {
  /// The members of a shared query that observers read.
  enum Member: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case wrappedValue, state, isLoading, error, status, valueUpdateCount
    case isStale, subscriberCount, context, isBacked, store

    var testDescription: String {
      self.rawValue
    }

    func read(_ value: SharedOperation<QueryState<Int, any Error>>) {
      switch self {
      case .wrappedValue: _ = value.wrappedValue
      case .state: _ = value.state
      case .isLoading: _ = value.isLoading
      case .error: _ = value.error
      case .status: _ = value.status
      case .valueUpdateCount: _ = value.valueUpdateCount
      case .isStale: _ = value.isStale
      case .subscriberCount: _ = value.subscriberCount
      case .context: _ = value.context
      case .isBacked: _ = value.isBacked
      case .store: _ = value.store
      }
    }
  }

  @Test(arguments: Member.allCases)
  func `Reading A Member Tracks The Store's State`(member: Member) async {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let value = SharedOperation(store: store)

    await confirmation { changed in
      withObservationTracking {
        member.read(value)
      } onChange: {
        changed()
      }
      store.setResult(to: .success(5))
    }
    #expect(value.wrappedValue == 5)
  }

  @Test func `A Fetch Fires Observers When Loading Starts`() async throws {
    let query = GatedQuery(value: 8)
    let store = OperationStore.detached(query: query, initialValue: nil)
    let value = SharedOperation(store: store)

    let task = value.fetchTask()
    await withCheckedContinuation { continuation in
      withObservationTracking {
        _ = value.isLoading
      } onChange: {
        continuation.resume()
      }
      Task { _ = try? await task.runIfNeeded() }
      query.gate.open()
    }
    _ = try await task.runIfNeeded()
    #expect(value.wrappedValue == 8)
    #expect(!value.isLoading)
  }

  @Test func `Observers Are Not Told Of Changes After Tracking Fired Once`() async {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let value = SharedOperation(store: store)

    await confirmation(expectedCount: 1) { changed in
      withObservationTracking {
        _ = value.wrappedValue
      } onChange: {
        changed()
      }
      store.setResult(to: .success(1))
      store.setResult(to: .success(2))
    }
  }

  @Test func `Changes Of An Unrelated Store Do Not Fire Observers`() async {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let other = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let value = SharedOperation(store: store)

    await confirmation(expectedCount: 0) { changed in
      withObservationTracking {
        _ = value.wrappedValue
      } onChange: {
        changed()
      }
      other.setResult(to: .success(1))
    }
  }

  @Test @MainActor func `A Main Actor Wrapper Tells Observers On The Main Actor`() async {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let value = SharedOperation(store: store, scheduler: .mainActor)

    Task.detached {
      store.setResult(to: .success(9))
    }
    let toldOnMainActor = await changes(of: value) { value.wrappedValue == 9 }
    #expect(!toldOnMainActor.isEmpty)
    #expect(toldOnMainActor.allSatisfy { $0 })
  }

  @Test @MainActor func `A Main Actor Wrapper Shows A Change After The Main Actor Applies It`()
    async
  {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let value = SharedOperation(store: store, scheduler: .mainActor)

    store.setResult(to: .success(4))
    #expect(value.wrappedValue == nil)
    let toldOnMainActor = await changes(of: value) { value.wrappedValue == 4 }
    #expect(toldOnMainActor.allSatisfy { $0 })
  }

  /// Observes a main-actor wrapper until `condition` holds, and says for each change whether it
  /// was told on the main actor.
  ///
  /// NB: A wrapper on the main-actor scheduler also applies the state it subscribed with in a
  /// main-actor task, and Observation does not compare states, so the change a test waits for may
  /// come after another. Each change re-registers, with no sleeping: the loop only runs when a
  /// change was told.
  @MainActor
  private func changes(
    of value: SharedOperation<QueryState<Int, any Error>>,
    until condition: @MainActor () -> Bool
  ) async -> [Bool] {
    var toldOnMainActor = [Bool]()
    while !condition() {
      let onMainActor = await withCheckedContinuation { continuation in
        withObservationTracking {
          _ = value.wrappedValue
        } onChange: {
          continuation.resume(returning: isOnMainQueue())
        }
      }
      toldOnMainActor.append(onMainActor)
    }
    return toldOnMainActor
  }
}
