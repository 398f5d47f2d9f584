public import Foundation

/// What a query cache and an outbox hold at one moment, as a `Codable` value for a debug
/// endpoint or a log, next to `OperationClient.snapshot()`.
///
/// ```swift
/// let snapshot = try await OperationPersistenceSnapshot(cache: cache, outbox: outbox)
/// snapshot.outbox?.queued  // Mutations waiting for the network.
/// ```
public struct OperationPersistenceSnapshot: Hashable, Sendable, Codable {
  /// The cache's entries on disk, if a cache was given.
  public var cache: PersistentQueryCache.Statistics?

  /// The cache's values saved but not yet written.
  public var pendingCacheWrites: Int?

  /// The outbox's entries by status, if an outbox was given.
  public var outbox: MutationOutbox.Statistics?

  /// The outbox's entries, oldest first, without their arguments.
  public var outboxEntries: [OutboxEntrySummary]?

  /// An outbox entry without its arguments.
  public struct OutboxEntrySummary: Hashable, Sendable, Codable {
    /// The entry's id.
    public var id: Int64
    /// Its kind.
    public var kind: String
    /// Its lane.
    public var lane: String
    /// Its idempotency key.
    public var idempotencyKey: String
    /// Where it stands.
    public var status: MutationOutbox.Entry.Status
    /// How many times it was sent.
    public var attempts: Int
    /// The description of its last error.
    public var lastError: String?
    /// When it was enqueued.
    public var enqueuedAt: Date
  }

  /// Reads the statistics of `cache` and the entries of `outbox`.
  ///
  /// - Parameters:
  ///   - cache: The query cache, if any.
  ///   - outbox: The outbox, if any.
  /// - Throws: The storage's error.
  public init(cache: PersistentQueryCache? = nil, outbox: MutationOutbox? = nil) async throws {
    self.cache = try await cache?.statistics()
    self.pendingCacheWrites = cache?.pendingWriteCount
    if let outbox {
      let entries = try await outbox.entries()
      self.outbox = MutationOutbox.Statistics(entries: entries)
      self.outboxEntries = entries.map {
        OutboxEntrySummary(
          id: $0.id,
          kind: $0.kind,
          lane: $0.lane,
          idempotencyKey: $0.idempotencyKey,
          status: $0.status,
          attempts: $0.attempts,
          lastError: $0.lastError,
          enqueuedAt: $0.enqueuedAt
        )
      }
    }
  }
}
