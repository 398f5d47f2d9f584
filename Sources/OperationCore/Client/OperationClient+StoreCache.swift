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

  /// The default store cache: an in-memory collection indexed by path.
  public final class DefaultStoreCache: StoreCache, Sendable {
    private let stores = Lock(OperationPathableCollection<OpaqueOperationStore>())

    /// Creates an empty cache.
    public init() {}

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
  }
}
