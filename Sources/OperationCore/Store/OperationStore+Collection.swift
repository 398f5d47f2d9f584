import OperationSynchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

// MARK: - Modifier

extension OperationRequest {
  /// Sets how long the store of this operation stays in its client's cache once nothing
  /// observes it; `nil` keeps it until the client clears it.
  ///
  /// A store is unobserved when it has no subscribers and no run in flight. Once it has been
  /// unobserved for `delay`, by the context's ``OperationContext/operationClock`` and
  /// ``OperationContext/collectionDelayer``, its client drops it, and the next request for the
  /// operation creates a fresh store. A subscriber or a run that arrives first keeps the store.
  ///
  /// ```swift
  /// // Kept for 30 seconds after the last screen showing it goes away.
  /// let search = SearchQuery(term: term).collected(after: .seconds(30))
  ///
  /// // Never collected.
  /// let settings = SettingsQuery().collected(after: nil)
  /// ```
  ///
  /// Set ``OperationContext/collectionDelay`` on a client's
  /// ``OperationClient/defaultContext`` to change the delay of every store it creates.
  ///
  /// - Parameter delay: How long an unobserved store stays cached, or `nil` for as long as the
  ///   client lives.
  /// - Returns: The modified operation.
  public func collected(
    after delay: OperationDuration?
  ) -> ModifiedOperation<Self, _CollectionDelayModifier<Self>> {
    self.modifier(_CollectionDelayModifier(delay: delay))
  }
}

/// The modifier behind ``OperationRequest/collected(after:)``.
public struct _CollectionDelayModifier<Operation: OperationRequest>:
  _ContextUpdatingOperationModifier
{
  let delay: OperationDuration?

  /// Writes the delay to ``OperationContext/collectionDelay``.
  public func setup(context: inout OperationContext) {
    context.collectionDelay = self.delay
  }
}

// MARK: - Context

extension OperationContext {
  /// How long a client keeps a store that nothing observes; `nil` keeps it until the client
  /// clears it.
  ///
  /// The default is 5 minutes on Apple platforms, as in TanStack Query, and `nil` elsewhere,
  /// where the package usually runs on a server that creates stores per request and clears
  /// them itself. Set it per operation with ``OperationRequest/collected(after:)``, or for a
  /// whole client on its ``OperationClient/defaultContext``. Stores made with
  /// `OperationStore.detached` belong to no client and are never collected.
  public var collectionDelay: OperationDuration? {
    get { self[CollectionDelayKey.self] }
    set { self[CollectionDelayKey.self] = newValue }
  }

  /// What waits out a ``collectionDelay``.
  ///
  /// The default sleeps on `ContinuousClock`. It is apart from
  /// ``OperationContext/operationDelayer``, which test store creators replace with a delayer
  /// that does not wait, so that such tests do not see their stores collected at once. Set a
  /// `ManualDelayer` (from OperationTestSupport) together with a manual
  /// ``OperationContext/operationClock`` to test collection without sleeping.
  public var collectionDelayer: any OperationDelayer & Sendable {
    get { self[CollectionDelayerKey.self] }
    set { self[CollectionDelayerKey.self] = newValue }
  }

  private enum CollectionDelayerKey: Key {
    static var defaultValue: any OperationDelayer & Sendable {
      ClockDelayer(clock: ContinuousClock())
    }
  }

  private enum CollectionDelayKey: Key {
    #if canImport(Darwin)
      static let defaultValue: OperationDuration? = .seconds(300)
    #else
      static let defaultValue: OperationDuration? = nil
    #endif
  }
}

// MARK: - Store

extension OperationStore {
  /// Whether the store has been collected: its client dropped it after it was unobserved for its
  /// ``OperationContext/collectionDelay``.
  ///
  /// A collected store keeps working. When it gains a subscriber while its client has no store at
  /// its path, it rejoins the client.
  public var isCollected: Bool {
    self.lock.withLock { $0.runs.isCollected }
  }

  /// Starts the collection timer of `generation`, which the store's runs asked for when the store
  /// became unobserved; called under the store's lock.
  @usableFromInline
  func startCollectionTimer(generation: Int, in storage: inout Storage) {
    let context = storage.context
    guard let delay = context.collectionDelay else { return }
    let since = context.operationClock.now()
    // NB: The timer refers to the store weakly, so that a store that is otherwise released is
    // not kept for its delay.
    let timer = Task { [weak self] in
      var remaining = delay
      while remaining > .zero {
        do {
          try await context.collectionDelayer.delay(for: remaining)
        } catch {
          return
        }
        // NB: The clock decides whether the delay is over, so that a delayer that ends early
        // waits again for the rest. A clock that did not move at all cannot decide, and then
        // the delayer does: that way a delayer that returns at once never spins.
        let elapsed = OperationDuration.seconds(
          context.operationClock.now().timeIntervalSince(since)
        )
        guard delay - elapsed < remaining else { break }
        remaining = delay - elapsed
      }
      self?.collectIfUnobserved(generation: generation)
    }
    storage.runs.collectionTimerStarted(timer, generation: generation)
  }

  /// Stops the collection timer and, when the store was collected, asks its client to take it
  /// back; called under the store's lock when the store gains its first subscriber.
  func observationResumed(_ action: Runs.SubscribeAction, context: OperationContext) {
    if let timer = action.cancelsTimer {
      self.lock.enqueue { timer.cancel() }
    }
    guard action.readmits, let client = context.operationClient else { return }
    let store = OpaqueOperationStore(erasing: self)
    self.lock.enqueue { client.readmit(store) }
  }

  private func collectIfUnobserved(generation: Int) {
    let collected = self.lock.withLock { storage -> OperationClient? in
      guard storage.runs.collectionTimerFired(generation: generation),
        let client = storage.context.operationClient
      else { return nil }
      // NB: The client's cache is locked while the store's lock is held, the order the library
      // always takes them in; so no subscriber can arrive between the check and the removal.
      guard client.removeFromCache(OpaqueOperationStore(erasing: self)) else { return nil }
      storage.runs.collected()
      return client
    }
    guard let collected else { return }
    collected.notifyCollected(OpaqueOperationStore(erasing: self))
    self.recordInstrumentEvent(.evicted)
  }
}

extension OperationStore {
  /// Evicts the store for a cache that bounds its stores, if it has no subscriber and no run in
  /// flight: `removeFromCache` removes it (under the store's lock, so that no subscriber or run
  /// arrives meanwhile), and the store then counts as collected and stops its collection timer.
  ///
  /// - Parameter removeFromCache: Removes the store from the cache, taking only the cache's lock,
  ///   and says whether it did.
  /// - Returns: Whether the store was evicted.
  package func evictIfUnobserved(removingFromCache removeFromCache: () -> Bool) -> Bool {
    let (isEvicted, timer) = self.lock.withLock { storage in
      storage.runs.evict(removingFromCache: removeFromCache)
    }
    timer?.cancel()
    if isEvicted {
      self.recordInstrumentEvent(.evicted)
    }
    return isEvicted
  }

  /// Starts the collection timer if the store is unobserved; see
  /// ``OperationContext/collectionDelay``.
  func scheduleCollection() {
    self.lock.withLock { storage in
      guard
        let generation = storage.runs.startCollectionTimerIfUnobserved(
          canCollect: storage.canCollect
        )
      else { return }
      self.startCollectionTimer(generation: generation, in: &storage)
    }
  }
}

// MARK: - Client

extension OperationClient {
  /// Removes a store from the cache if it is the one cached at its path; takes the cache's lock
  /// only, so the store's lock may be held.
  func removeFromCache(_ store: OpaqueOperationStore) -> Bool {
    self.storeCache.withStores { stores in
      guard let cached = stores[store.path], cached.base as AnyObject === store.base as AnyObject
      else { return false }
      stores.removeValue(forPath: store.path)
      return true
    }
  }

  /// Tells the client's subscribers that a store was collected.
  func notifyCollected(_ store: OpaqueOperationStore) {
    self.lock.withLock { storage in
      self.notify(storage, added: [], removed: [store])
    }
  }

  /// Takes back a collected store that gained a subscriber, unless another store took its path.
  func readmit(_ store: OpaqueOperationStore) {
    let isReadmitted = self.lock.withLock { storage in
      let isReadmitted = self.storeCache.withStores { stores -> Bool in
        guard stores[store.path] == nil else { return false }
        stores.update(store)
        return true
      }
      if isReadmitted {
        self.notify(storage, added: [store], removed: [])
      }
      return isReadmitted
    }
    if isReadmitted {
      self.storeCache.storeWasUsed(store)
    }
  }
}
