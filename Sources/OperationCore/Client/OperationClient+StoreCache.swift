import IssueReporting
import OperationSynchronization

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
  }

  /// The default store cache: an in-memory collection indexed by path that sheds idle stores
  /// under memory pressure.
  ///
  /// Eviction contract:
  /// - On every notification from its ``MemoryPressureSource``, the cache removes each store that
  ///   has no subscribers and whose ``OperationContext/evictableMemoryPressure`` contains the
  ///   reported severity (by default ``MemoryPressure/warning`` and ``MemoryPressure/critical``).
  ///   A notification with an empty severity evicts nothing.
  /// - Operations opt out with ``OperationRequest/evictWhen(pressure:)``, for example
  ///   `.evictWhen(pressure: [])` to never be evicted.
  /// - Eviction happens inside the cache, so the client's subscribers are not told about it. The
  ///   next `store(for:)` for an evicted path creates a new store.
  /// - Without a source the cache never evicts; stores then stay until the client clears them.
  ///
  /// ```swift
  /// let source = ManualMemoryPressureSource()
  /// let client = OperationClient(storeCache: DefaultStoreCache(memoryPressureSource: source))
  /// let store = client.store(for: PostQuery(id: 1))
  /// source.send(.warning)
  /// client.store(with: store.path)  // nil: nobody was subscribed to the store.
  /// ```
  public final class DefaultStoreCache: StoreCache, Sendable {
    private let stores = Lock(OperationPathableCollection<OpaqueOperationStore>())
    private let subscription = Lock(OperationSubscription.empty)

    /// Creates an empty cache that evicts idle stores when `memoryPressureSource` reports
    /// pressure.
    ///
    /// - Parameter memoryPressureSource: The source of memory pressure notifications; the
    ///   platform's default by default (see ``OperationClient/defaultMemoryPressureSource``), and
    ///   no eviction at all when `nil`.
    public init(
      memoryPressureSource: sending (any MemoryPressureSource)? =
        OperationClient.defaultMemoryPressureSource
    ) {
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
      try self.stores.withLock { stores throws -> sending T in try body(&stores) }
    }

    private func evict(under pressure: MemoryPressure) {
      guard !pressure.isEmpty else { return }
      // NB: The stores are checked outside the cache's lock, because a store's lock must never be
      // taken while the cache's is held: code running under a store's lock may look stores up in
      // the client, which takes the cache's lock. A store that gains its first subscriber between
      // the check and the removal is still evicted; the subscriber keeps the instance alive, and
      // the client creates a new store for the path the next time it is asked.
      let candidates = self.stores.withLock { $0 }
      let evictable = candidates.filter { $0.isEvictable(under: pressure) }
      guard !evictable.isEmpty else { return }
      let evicted = self.stores.withLock { stores in
        var evicted = [OpaqueOperationStore]()
        for store in evictable where stores[store.path] === store {
          stores.removeValue(forPath: store.path)
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
