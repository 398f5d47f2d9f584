import IssueReporting
import OperationSynchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension OperationClient {
  /// Where a client keeps its stores.
  public protocol StoreCache {
    /// Gives `body` exclusive access to the stores.
    ///
    /// - Parameter body: Reads or edits the stores.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    func withStores<T>(
      _ body: (inout OperationPathableCollection<OpaqueOperationStore>) throws -> sending T
    ) rethrows -> sending T

    /// Tells the cache that the client handed out `store` (found at its path or just added) or
    /// that `store` joined it; called with no lock held.
    ///
    /// A cache that bounds its stores records the use and evicts beyond its limits here. The
    /// default implementation does nothing.
    ///
    /// - Parameter store: The store.
    func storeWasUsed(_ store: OpaqueOperationStore)
  }

  /// The default store cache: an in-memory collection indexed by path that sheds idle stores
  /// under memory pressure and, with ``StoreLimits``, beyond a number of stores or bytes.
  ///
  /// Eviction contract:
  /// - On every notification from its ``MemoryPressureSource``, the cache removes each store that
  ///   has no subscribers and whose ``OperationContext/evictableMemoryPressure`` contains the
  ///   reported severity (by default ``MemoryPressure/warning`` and ``MemoryPressure/critical``).
  ///   A notification with an empty severity evicts nothing.
  /// - Operations opt out with ``OperationRequest/evictWhen(pressure:)``, for example
  ///   `.evictWhen(pressure: [])` to never be evicted.
  /// - With limits, each time the client hands out a store the cache evicts the least recently
  ///   used stores that have no subscriber and no run in flight, until it holds at most
  ///   ``StoreLimits/maxStoreCount`` stores and ``StoreLimits/maxByteCount`` bytes of values.
  ///   Observed stores are never evicted this way. Stores added through ``withStores(_:)``
  ///   directly count as used once the client hands them out.
  /// - Eviction happens inside the cache, so the client's subscribers are not told about it. The
  ///   next `store(for:)` for an evicted path creates a new store.
  /// - Without a source and without limits the cache never evicts; stores then stay until the
  ///   client clears them.
  ///
  /// ```swift
  /// let source = ManualMemoryPressureSource()
  /// let client = OperationClient(storeCache: DefaultStoreCache(memoryPressureSource: source))
  /// let store = client.store(for: PostQuery(id: 1))
  /// source.send(.warning)
  /// client.store(with: store.path)  // nil: nobody was subscribed to the store.
  /// ```
  public final class DefaultStoreCache: StoreCache, Sendable {
    private let contents = Lock(Contents())
    private let subscription = Lock(OperationSubscription.empty)

    /// The limits of the cache, if any.
    public let limits: StoreLimits?
    private let clock: any OperationClock & Sendable
    private let delayer: any OperationDelayer & Sendable

    private struct Contents: Sendable {
      var stores = OperationPathableCollection<OpaqueOperationStore>()
      /// The paths of the stores handed out, least recently used first; only with limits.
      var recency = RecencyList<OperationPath>()
      /// When each store in `recency` was last used; only with an idle age.
      var usedAt = [OperationPath: Date]()
      /// The timer that evicts idle stores, once started.
      var idleTimer: Task<Void, Never>?
      /// The measured size of each store's value, and the subscription that measures it again
      /// when the store records a value; only with a byte limit.
      var sizes = [OperationPath: Size]()
      var byteCount = 0

      struct Size: Sendable {
        var byteCount: Int
        let store: OpaqueOperationStore
        let subscription: OperationSubscription
      }

      func isOverLimits(_ limits: StoreLimits) -> Bool {
        if let maxStoreCount = limits.maxStoreCount, self.stores.count > maxStoreCount {
          return true
        }
        if let maxByteCount = limits.maxByteCount, self.byteCount > maxByteCount {
          return true
        }
        return false
      }

      /// Whether the least recently used store is `maxIdleAge` old at `now`.
      func isIdleStoreDue(_ limits: StoreLimits, at now: Date) -> Bool {
        guard let maxIdleAge = limits.maxIdleAge, let path = self.recency.leastRecent,
          let usedAt = self.usedAt[path]
        else { return false }
        return OperationDuration.seconds(now.timeIntervalSince(usedAt)) >= maxIdleAge
      }

      mutating func use(_ path: OperationPath, at now: Date?) -> Bool {
        if let now {
          self.usedAt[path] = now
        }
        return self.recency.use(path)
      }

      mutating func forget(_ path: OperationPath) {
        self.recency.remove(path)
        self.usedAt.removeValue(forKey: path)
        if let size = self.sizes.removeValue(forKey: path) {
          self.byteCount -= size.byteCount
          size.subscription.cancel()
        }
      }
    }

    /// Creates an empty cache that evicts idle stores when `memoryPressureSource` reports
    /// pressure, and beyond `limits`.
    ///
    /// - Parameters:
    ///   - memoryPressureSource: The source of memory pressure notifications; the platform's
    ///     default by default (see ``OperationClient/defaultMemoryPressureSource``), and no
    ///     eviction under pressure at all when `nil`.
    ///   - limits: The most stores and bytes to keep, and the longest a store may go unused;
    ///     `nil` (the default) for no limit.
    ///   - clock: The clock that dates each use, for ``StoreLimits/maxIdleAge``.
    ///   - delayer: What waits until the least recently used store reaches
    ///     ``StoreLimits/maxIdleAge``.
    public init(
      memoryPressureSource: sending (any MemoryPressureSource)? =
        OperationClient.defaultMemoryPressureSource,
      limits: StoreLimits? = nil,
      clock: any OperationClock & Sendable = SystemTimeClock(),
      delayer: any OperationDelayer & Sendable = ClockDelayer(clock: ContinuousClock())
    ) {
      self.limits = limits
      self.clock = clock
      self.delayer = delayer
      guard let memoryPressureSource else { return }
      let subscription = memoryPressureSource.subscribe { [weak self] pressure in
        self?.evict(under: pressure)
      }
      self.subscription.withLock { $0 = subscription }
    }

    /// Gives `body` exclusive access to the cached stores while holding the cache's lock.
    ///
    /// - Parameter body: Reads or edits the stores.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withStores<T>(
      _ body: (inout OperationPathableCollection<OpaqueOperationStore>) throws -> sending T
    ) rethrows -> sending T {
      try self.contents.withLock { contents throws -> sending T in try body(&contents.stores) }
    }

    /// Records that the client handed out `store`, then evicts the least recently used
    /// unobserved stores beyond the cache's limits.
    ///
    /// - Parameter store: The store.
    public func storeWasUsed(_ store: OpaqueOperationStore) {
      guard let limits = self.limits else { return }
      let now = limits.maxIdleAge == nil ? nil : self.clock.now()
      let (isNew, startsIdleTimer) = self.contents.withLock { contents -> (Bool, Bool) in
        guard contents.stores[store.path]?.isSame(as: store) == true else { return (false, false) }
        let isNew = contents.use(store.path, at: now) && limits.maxByteCount != nil
        return (isNew, now != nil && contents.idleTimer == nil)
      }
      if isNew {
        self.measure(store, limits: limits)
      }
      if startsIdleTimer {
        self.startIdleTimer(limits)
      }
      // NB: Eviction takes the locks of other stores, so a thread that holds a library lock (for
      // example a store's, in `withExclusiveAccess`) evicts once it releases it, never under it.
      LibraryLocks.afterRelease { self.evictBeyondLimits(limits) }
    }

    deinit {
      self.contents.withLock { $0.idleTimer?.cancel() }
    }

    /// Starts the one timer that evicts the stores that reach the idle age: it waits until the
    /// least recently used store reaches it (or for the whole age when there is none), evicts
    /// what is due, and waits again.
    private func startIdleTimer(_ limits: StoreLimits) {
      guard let maxIdleAge = limits.maxIdleAge else { return }
      let delayer = self.delayer
      let timer = Task { [weak self] in
        while let delay = self?.idleTimerDelay(maxIdleAge) {
          do {
            try await delayer.delay(for: delay)
          } catch {
            return
          }
          self?.evictIdleStores(limits)
        }
      }
      let isStarted = self.contents.withLock { contents -> Bool in
        guard contents.idleTimer == nil else { return false }
        contents.idleTimer = timer
        return true
      }
      if !isStarted {
        timer.cancel()
      }
    }

    /// How long until the least recently used store reaches `maxIdleAge`.
    private func idleTimerDelay(_ maxIdleAge: OperationDuration) -> OperationDuration {
      let now = self.clock.now()
      let oldestUse = self.contents.withLock { contents in
        contents.recency.leastRecent.flatMap { contents.usedAt[$0] }
      }
      guard let oldestUse else { return maxIdleAge }
      let remaining = maxIdleAge - .seconds(now.timeIntervalSince(oldestUse))
      // NB: A store that is due already is evicted after a short wait rather than at once, so
      // that an observed store that stays due cannot make the timer spin.
      return max(remaining, maxIdleAge / 1_000)
    }

    private func evictIdleStores(_ limits: StoreLimits) {
      let now = self.clock.now()
      self.evictLeastRecent(limits, now: now) { $0.isIdleStoreDue(limits, at: now) }
    }

    /// Measures a store that joined the cache, and again each time it records a value.
    private func measure(_ store: OpaqueOperationStore, limits: StoreLimits) {
      let path = store.path
      let subscription = store.observeRecordedValues { [weak self, weak store] value in
        guard let self, let store else { return }
        self.resize(store, to: limits.estimatedByteCount(value))
        LibraryLocks.afterRelease { self.evictBeyondLimits(limits) }
      }
      let byteCount = limits.estimatedByteCount(store.currentValue)
      let isAdded = self.contents.withLock { contents -> Bool in
        guard contents.stores[path]?.isSame(as: store) == true, contents.sizes[path] == nil
        else { return false }
        contents.sizes[path] = Contents.Size(
          byteCount: byteCount,
          store: store,
          subscription: subscription
        )
        contents.byteCount += byteCount
        return true
      }
      if !isAdded {
        subscription.cancel()
      }
    }

    private func resize(_ store: OpaqueOperationStore, to byteCount: Int) {
      self.contents.withLock { contents in
        guard var size = contents.sizes[store.path], size.store.isSame(as: store) else { return }
        contents.byteCount += byteCount - size.byteCount
        size.byteCount = byteCount
        contents.sizes[store.path] = size
      }
    }

    /// Evicts the least recently used unobserved stores until the cache is within its limits.
    private func evictBeyondLimits(_ limits: StoreLimits) {
      let now = limits.maxIdleAge == nil ? nil : self.clock.now()
      self.evictLeastRecent(limits, now: now) { $0.isOverLimits(limits) }
    }

    /// Evicts the least recently used unobserved stores while `isDue` holds, looking at each
    /// store at most once; an observed store it passes counts as used (at `now`).
    private func evictLeastRecent(
      _ limits: StoreLimits,
      now: Date?,
      while isDue: (Contents) -> Bool
    ) {
      var remaining = self.contents.withLock { isDue($0) ? $0.recency.count : 0 }
      while remaining > 0 {
        remaining -= 1
        let candidate = self.contents.withLock { contents -> OpaqueOperationStore? in
          while isDue(contents), let path = contents.recency.leastRecent {
            if let store = contents.stores[path] {
              return store
            }
            contents.forget(path)
          }
          return nil
        }
        guard let candidate else { return }
        // NB: The store's lock is taken before the cache's, the order the library always takes
        // them in, so that no subscriber or run can arrive between the check and the removal.
        let isEvicted = candidate.evictIfUnobserved {
          self.contents.withLock { contents in
            guard contents.stores[candidate.path]?.isSame(as: candidate) == true, isDue(contents)
            else { return false }
            contents.stores.removeValue(forPath: candidate.path)
            contents.forget(candidate.path)
            return true
          }
        }
        if !isEvicted {
          self.contents.withLock { contents in
            if contents.stores[candidate.path]?.isSame(as: candidate) == true {
              _ = contents.use(candidate.path, at: now)
            } else {
              contents.forget(candidate.path)
            }
          }
        }
      }
    }

    private func evict(under pressure: MemoryPressure) {
      guard !pressure.isEmpty else { return }
      // NB: The stores are checked outside the cache's lock, because a store's lock must never be
      // taken while the cache's is held: code running under a store's lock may look stores up in
      // the client, which takes the cache's lock. A store that gains its first subscriber between
      // the check and the removal is still evicted; the subscriber keeps the instance alive, and
      // the client creates a new store for the path the next time it is asked.
      let candidates = self.contents.withLock { $0.stores }
      let evictable = candidates.filter { $0.isEvictable(under: pressure) }
      guard !evictable.isEmpty else { return }
      let evicted = self.contents.withLock { contents in
        var evicted = [OpaqueOperationStore]()
        for store in evictable where contents.stores[store.path] === store {
          contents.stores.removeValue(forPath: store.path)
          contents.forget(store.path)
          evicted.append(store)
        }
        return evicted
      }
      for store in evicted {
        store.recordInstrumentEvent(.evicted)
      }
      // NB: `candidates` and `evictable` release the evicted stores here, after the lock.
    }
  }
}

extension OperationClient.StoreCache {
  /// Does nothing: a cache without limits has no use for the order in which stores are used.
  ///
  /// - Parameter store: The store.
  public func storeWasUsed(_ store: OpaqueOperationStore) {}
}

extension OpaqueOperationStore {
  fileprivate func isEvictable(under pressure: MemoryPressure) -> Bool {
    self.withExclusiveAccess { store in
      store.subscriberCount == 0 && store.context.evictableMemoryPressure.contains(pressure)
    }
  }
}

// MARK: - Default memory pressure source

extension OperationClient {
  /// The memory pressure source that ``DefaultStoreCache`` uses unless told otherwise.
  ///
  /// - On Apple platforms it is `DispatchMemoryPressureSource`.
  /// - On Linux it is `LinuxMemoryPressureSource.shared`, which polls the kernel's pressure
  ///   stall information every 5 seconds.
  /// - Elsewhere it is `nil`: the default cache never evicts.
  /// - Under a test runner (IssueReporting's `isTesting`) it is `nil` everywhere, so that a busy
  ///   test machine cannot evict stores from under a test. Pass a `ManualMemoryPressureSource`
  ///   from OperationTestSupport to test eviction.
  public static var defaultMemoryPressureSource: (any MemoryPressureSource & Sendable)? {
    guard !isTesting else { return nil }
    #if canImport(Darwin)
      return DispatchMemoryPressureSource()
    #elseif os(Linux)
      return LinuxMemoryPressureSource.shared
    #else
      return nil
    #endif
  }
}
