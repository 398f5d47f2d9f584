import Foundation
public import OperationCore
import OperationSynchronization

// MARK: - Modifier

extension StatefulOperationRequest where State: Sendable, State.StateValue: Codable {
  /// Keeps this operation's value in `cache`: its store starts from the saved value and saves
  /// each new one.
  ///
  /// A store created for the operation loads the entry of its key. When there is one, the store
  /// starts with its value, dated when it was saved, and invalidated: it is stale, so it runs as
  /// soon as it is observed (when automatic running is enabled), and shows the saved value until
  /// then. With a storage that reads only asynchronously (one that does not adopt
  /// ``SynchronousCacheReading``), the value arrives after the store is created, and only if the
  /// store recorded no value meanwhile. Each value the store records afterwards (fetched, yielded or set) is saved with its
  /// update date, in the cache's next batch of writes.
  ///
  /// ```swift
  /// let feed = FeedQuery().persisted(in: cache)
  /// ```
  ///
  /// - Parameters:
  ///   - cache: The cache.
  ///   - key: The entry's key; when `nil`, ``PersistentQueryCache/key(for:operationType:)`` of
  ///     the operation's path and type (its modifiers left out). Give a key when the path holds
  ///     a value with no stable encoding; the key must be unique to the operation and its path.
  /// - Returns: The modified operation.
  public func persisted(
    in cache: PersistentQueryCache,
    key: String? = nil
  ) -> ControlledOperation<Self, PersistedQueryController<State>> {
    self.controlled(
      by: PersistedQueryController(
        cache: cache,
        key: key,
        operationType: underlyingOperationType(of: Self.self)
      )
    )
  }
}

// MARK: - Controller

/// The controller behind `StatefulOperationRequest/persisted(in:key:)` and
/// ``PersistingStoreCreator``: it loads a store's value when the store is created, and saves its
/// new values.
public struct PersistedQueryController<State: OperationState & Sendable>: OperationController,
  Sendable
{
  let cache: PersistentQueryCache
  let key: String?
  let operationType: ErasedOperationType
  let decode: @Sendable (Data) throws -> State.StateValue
  let save:
    @Sendable (PersistentQueryCache, State.StateValue, String, Date, (@Sendable () -> Void)?) ->
      Void

  init(cache: PersistentQueryCache, key: String?, operationType: ErasedOperationType)
  where State.StateValue: Codable {
    self.cache = cache
    self.key = key
    self.operationType = operationType
    self.decode = { try JSONDecoder().decode(State.StateValue.self, from: $0) }
    self.save = { cache, value, key, date, recordFailure in
      cache.save(value, forKey: key, updatedAt: date, recordFailure: recordFailure)
    }
  }

  /// A controller for a value type that is `Codable` at run time; `nil` when it is not.
  init?(cache: PersistentQueryCache, key: String?, operationType: ErasedOperationType) {
    guard let codable = State.StateValue.self as? any Codable.Type else { return nil }
    self.cache = cache
    self.key = key
    self.operationType = operationType
    let type = CodableType(base: codable)
    self.decode = { data in
      // NB: The cast succeeds: `type.base` is `State.StateValue`.
      try JSONDecoder().decode(type.base, from: data) as! State.StateValue
    }
    self.save = { cache, value, key, date, recordFailure in
      guard let value = value as? any Encodable else { return }
      cache.save(
        SendableEncodable(base: value),
        forKey: key,
        updatedAt: date,
        recordFailure: recordFailure
      )
    }
  }

  /// Loads the store's saved value, then saves each new value the store records.
  ///
  /// A path without a stable key (see ``PersistentQueryCache/key(for:operationType:)``) is
  /// reported to the cache's `onProblem` handler, and the store is not persisted.
  ///
  /// Loading and saving call the cache's clock, storage and `onProblem` handler, which may be the
  /// app's code, so they never run while the thread holds a lock of the library. A store created
  /// outside any lock (as `OperationClient.store(for:)` creates it) has its saved value when it is
  /// returned. One created while a lock is held (inside the closure of
  /// `OperationClient.withStores(matching:perform:)`, say) gets it right after the lock is
  /// released, unless a value was recorded in the meantime, which wins.
  ///
  /// - Parameter controls: The store's controls.
  /// - Returns: The subscription that stops the saving.
  public func control(with controls: OperationControls<State>) -> OperationSubscription {
    guard LibraryLocks.areHeldByCurrentThread else { return self.attach(to: controls) }
    let subscription = Lock<OperationSubscription?>(nil)
    LibraryLocks.afterRelease {
      let attached = self.attach(to: controls)
      // NB: A subscription cancelled before the lock's release stays cancelled.
      let isCancelled = subscription.withLock { current in
        guard current == nil else { return true }
        current = attached
        return false
      }
      if isCancelled { attached.cancel() }
    }
    return OperationSubscription {
      let attached = subscription.withLock { current in
        defer { current = .empty }
        return current
      }
      attached?.cancel()
    }
  }

  /// Loads the store's saved value and starts saving; called with no library lock held.
  private func attach(to controls: OperationControls<State>) -> OperationSubscription {
    let key: String
    if let given = self.key {
      key = given
    } else {
      do throws(PersistentKeyError) {
        key = try PersistentQueryCache.key(
          for: controls.path,
          operationType: self.operationType.base
        )
      } catch {
        self.cache.report(.unstableKey(error))
        return .empty
      }
    }
    guard let store = controls.controlledStore else { return .empty }
    let cache = self.cache
    let save = self.save
    let recordFailure: @Sendable () -> Void = { [weak store] in
      store?.recordInstrumentEvent(.persistenceWriteFailed)
    }
    let state = controls.state
    var loading: Task<Void, Never>?
    /// The date of the value loaded in the background, which needs no saving.
    let loadedDate = Lock<Date?>(nil)
    if state.valueUpdateCount == 0 {
      if let reader = cache.synchronousReader {
        if let (value, updatedAt) = cache.loadNow(from: reader, forKey: key, decode: self.decode) {
          var context = controls.context
          context.operationClock = TimeFreezeClock(date: updatedAt)
          controls.yield(value, using: context)
          controls.invalidate()
        }
      } else {
        cache.beginBackgroundLoad()
        loading = Task { [decode] in
          defer { cache.endBackgroundLoad() }
          guard let (value, updatedAt) = await cache.load(forKey: key, decode: decode),
            let store = controls.controlledStore
          else { return }
          // NB: The newest value wins: a value the store recorded while the entry was read stays.
          store.withExclusiveAccess { _ in
            guard controls.state.valueUpdateCount == 0 else { return }
            loadedDate.withLock { $0 = updatedAt }
            var context = controls.context
            context.operationClock = TimeFreezeClock(date: updatedAt)
            controls.yield(value, using: context)
            controls.invalidate()
          }
        }
      }
    } else if let date = state.valueLastUpdatedAt {
      // NB: A value recorded before the lock's release (see `control(with:)`) is newer than the
      // saved one: it stays, and is saved.
      save(cache, state.currentValue, key, date, recordFailure)
    }
    let observation = store.observeRecordedValues { state in
      guard let date = state.valueLastUpdatedAt else { return }
      // NB: The value loaded in the background is the saved one.
      if state.valueUpdateCount == 1, loadedDate.withLock({ $0 }) == date { return }
      let value = state.currentValue
      // NB: The save reads the cache's clock; should the store ever call its value observers
      // with a lock held, the save waits for the lock's release.
      LibraryLocks.afterRelease {
        save(cache, value, key, date, recordFailure)
      }
    }
    guard let loading else { return observation }
    return OperationSubscription {
      loading.cancel()
      observation.cancel()
    }
  }
}

// MARK: - Store creator

/// A store creator that persists every operation whose value is `Codable`, in one cache, and
/// then creates the store with another creator.
///
/// ```swift
/// let client = OperationClient(
///   storeCreator: PersistingStoreCreator(cache: cache, base: .default())
/// )
/// ```
///
/// Operations whose value is not `Codable`, and those that `isIncluded` leaves out, are created
/// as `base` creates them. Mutations are never persisted here (see ``MutationOutbox``).
public struct PersistingStoreCreator<Base: OperationClient.StoreCreator & Sendable>:
  OperationClient.StoreCreator, Sendable
{
  /// The cache.
  public let cache: PersistentQueryCache

  /// The creator that makes the stores.
  public let base: Base

  private let isIncluded: @Sendable (OperationPath) -> Bool

  /// Creates a creator.
  ///
  /// - Parameters:
  ///   - cache: The cache.
  ///   - base: The creator that makes the stores.
  ///   - isIncluded: Whether to persist the operation at a path; every path by default.
  public init(
    cache: PersistentQueryCache,
    base: Base,
    isIncluded: @escaping @Sendable (OperationPath) -> Bool = { _ in true }
  ) {
    self.cache = cache
    self.base = base
    self.isIncluded = isIncluded
  }

  /// Creates a store with the base creator, persisted when its value is `Codable`.
  public func store<Operation: StatefulOperationRequest>(
    for operation: sending Operation,
    in context: OperationContext,
    with initialState: Operation.State
  ) -> OperationStore<Operation.State> {
    var context = context
    if !(Operation.State.self is any _MutationStateProtocol.Type),
      self.isIncluded(operation.path),
      let controller = PersistedQueryController<Operation.State>(
        cache: self.cache,
        key: nil,
        operationType: underlyingOperationType(of: Operation.self)
      )
    {
      context.operationControllers.append(controller)
    }
    return self.base.store(for: operation, in: context, with: initialState)
  }
}

/// A store's value type seen as `Codable` through a dynamic cast.
// NB: `@unchecked Sendable` is safe because `base` is the metatype of a store's
// `State.StateValue`, a `Sendable` type, whose metatype may cross isolation; the cast to
// `any Codable.Type` only lost that fact.
private struct CodableType: @unchecked Sendable {
  let base: any Codable.Type
}

/// An operation's type, to name its entries.
// NB: `@unchecked Sendable` is safe because a metatype is an immutable pointer to type metadata,
// which every thread may read; `any Any.Type` is not `Sendable` only because the metatype of a
// type isolated to an actor could be used to reach that isolation, and this one is only ever
// read for its name.
package struct ErasedOperationType: @unchecked Sendable {
  package let base: any Any.Type
}

/// A store's value seen as `Encodable` through a dynamic cast.
// NB: `@unchecked Sendable` is safe because `base` is a store's `State.StateValue`, which
// `OperationState` requires to be `Sendable`; the cast to `any Encodable` only lost that fact.
private struct SendableEncodable: Encodable, @unchecked Sendable {
  let base: any Encodable

  func encode(to encoder: any Encoder) throws {
    try self.base.encode(to: encoder)
  }
}
