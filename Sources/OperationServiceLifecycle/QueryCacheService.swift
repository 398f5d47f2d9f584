public import OperationPersistence
public import ServiceLifecycle

/// Writes a ``PersistentQueryCache``'s pending values to its storage when a swift-service-lifecycle
/// `ServiceGroup` shuts down, so that a graceful stop loses no cached value.
///
/// The cache writes its values in batches in the background while the service runs. On the
/// group's graceful shutdown (or its cancellation), `run()` calls
/// ``PersistentQueryCache/flush()``, which writes every value still pending, and returns; it
/// throws the storage's error when a value could not be written, which the group reports.
///
/// ```swift
/// let group = ServiceGroup(
///   services: [QueryCacheService(cache: cache), httpServer],
///   gracefulShutdownSignals: [.sigterm],
///   logger: logger
/// )
/// ```
///
/// List the cache before the services that fetch through it (the HTTP server): a group shuts its
/// services down in reverse order, so the values of the last requests are written too.
public struct QueryCacheService: Service {
  /// The cache.
  public let cache: PersistentQueryCache

  /// Creates a service for a cache.
  ///
  /// - Parameter cache: The cache.
  public init(cache: PersistentQueryCache) {
    self.cache = cache
  }

  /// Waits for the graceful shutdown (or cancellation), then writes every pending value.
  ///
  /// - Throws: The storage's error when pending values could not be written.
  public func run() async throws {
    // NB: A cancelled service flushes too: writing what is pending does not wait on anything
    // but the storage.
    _ = try? await gracefulShutdown()
    try await self.cache.flush()
  }
}
