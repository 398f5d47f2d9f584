public import OperationCore
public import OperationPersistence
public import ServiceLifecycle

/// Delivers a ``MutationOutbox``'s entries as a `Service` of a swift-service-lifecycle
/// `ServiceGroup`, and stops it gracefully.
///
/// `run()` resumes the outbox (it delivers what an earlier launch left, and what is enqueued
/// from now on) and waits for the group's graceful shutdown. Then it calls
/// ``MutationOutbox/shutdown(gracePeriod:)``: the outbox claims no new entry and refuses new
/// enqueues, lets the deliveries in flight finish within ``gracePeriod``, cancels the rest,
/// gives its claims back so that another worker can take the entries at once, and `run()`
/// returns. A delivery is never cut by the shutdown unless it outlives the grace period, and an
/// entry whose delivery was cut is delivered again later with the same idempotency key.
///
/// When the group cancels the service instead (a failure of another service, or a second
/// signal), the grace period is skipped.
///
/// ```swift
/// let group = ServiceGroup(
///   services: [QueryCacheService(cache: cache), MutationOutboxService(outbox: outbox), httpServer],
///   gracefulShutdownSignals: [.sigterm, .sigint],
///   logger: logger
/// )
/// try await group.run()
/// ```
///
/// A service group shuts its services down in reverse order, so list the outbox before the HTTP
/// server: the server stops taking requests (and so new enqueues) before the outbox drains.
public struct MutationOutboxService: Service {
  /// The outbox.
  public let outbox: MutationOutbox

  /// How long deliveries in flight may take to end once the shutdown starts.
  public let gracePeriod: OperationDuration

  /// Creates a service for an outbox.
  ///
  /// - Parameters:
  ///   - outbox: The outbox; the service resumes it, so do not resume it yourself.
  ///   - gracePeriod: How long deliveries in flight may take to end; 10 seconds by default.
  public init(outbox: MutationOutbox, gracePeriod: OperationDuration = .seconds(10)) {
    self.outbox = outbox
    self.gracePeriod = gracePeriod
  }

  /// Resumes the outbox, waits for the graceful shutdown (or cancellation), then stops it.
  ///
  /// - Throws: The storage's error when the outbox cannot be resumed (for example
  ///   ``MutationOutbox/OutboxClaimedError`` when another process delivers the same outbox).
  public func run() async throws {
    try await self.outbox.resume()
    // NB: `gracefulShutdown()` throws when the task is cancelled instead; the outbox stops then
    // too, without waiting for its deliveries.
    let isGraceful = (try? await gracefulShutdown()) != nil
    await self.outbox.shutdown(gracePeriod: isGraceful ? self.gracePeriod : .zero)
  }
}
