public import Foundation

/// Where ``PersistentQueryCache`` and ``MutationOutbox`` keep their entries.
///
/// ``SQLitePersistence`` is the engine the package ships, on GRDB. Another engine conforms by
/// implementing these requirements, each of which must be atomic: the outbox relies on every
/// change of an entry being one transaction, so that a crash never leaves half of one.
public protocol OperationPersistenceStorage: Sendable {
  // MARK: Query cache

  /// The cache entry for `key`, if there is one.
  ///
  /// - Parameter key: The entry's key.
  /// - Returns: The entry.
  /// - Throws: The engine's error.
  func cacheEntry(forKey key: String) throws -> PersistedQueryEntry?

  /// Writes `entries` (replacing entries with the same keys), records `accesses` (a last-access
  /// date per key, for the least-recently-used order), then removes the least recently used
  /// entries beyond the bounds; all in one transaction.
  ///
  /// - Parameters:
  ///   - entries: The entries to write.
  ///   - accesses: Last-access dates by key, for existing entries.
  ///   - bounds: The most entries and bytes to keep.
  /// - Returns: The number of entries removed to stay within the bounds.
  /// - Throws: The engine's error.
  @discardableResult
  func writeCacheEntries(
    _ entries: [PersistedQueryEntry],
    accesses: [String: Date],
    bounds: PersistentQueryCache.Bounds
  ) throws -> Int

  /// Removes the entries with the given keys.
  ///
  /// - Parameter keys: The keys.
  /// - Throws: The engine's error.
  func removeCacheEntries(forKeys keys: [String]) throws

  /// Removes every entry whose version is not `version` or whose value was updated before
  /// `date`.
  ///
  /// - Parameters:
  ///   - version: The version to keep.
  ///   - date: The oldest update date to keep; `nil` keeps every age.
  /// - Returns: The number of entries removed.
  /// - Throws: The engine's error.
  func removeCacheEntries(notMatching version: String, updatedBefore date: Date?) throws -> Int

  /// The number of cache entries, their size and their oldest update.
  ///
  /// - Returns: The statistics.
  /// - Throws: The engine's error.
  func cacheStatistics() throws -> PersistentQueryCache.Statistics

  // MARK: Outbox

  /// Adds a queued entry, or returns the entry that already has `idempotencyKey`.
  ///
  /// - Parameters:
  ///   - kind: The registered kind of mutation.
  ///   - lane: The lane the entry is delivered in, in order.
  ///   - idempotencyKey: The key the server deduplicates by; unique.
  ///   - arguments: The encoded arguments.
  ///   - date: The date of the enqueueing.
  /// - Returns: The entry.
  /// - Throws: The engine's error.
  func enqueueOutboxEntry(
    kind: String,
    lane: String,
    idempotencyKey: String,
    arguments: Data,
    at date: Date
  ) throws -> MutationOutbox.Entry

  /// Every outbox entry, oldest first.
  ///
  /// - Returns: The entries.
  /// - Throws: The engine's error.
  func outboxEntries() throws -> [MutationOutbox.Entry]

  /// Replaces the stored entry with the same id; does nothing when it is gone.
  ///
  /// - Parameter entry: The entry.
  /// - Throws: The engine's error.
  func updateOutboxEntry(_ entry: MutationOutbox.Entry) throws

  /// Removes the entry with `id`.
  ///
  /// - Parameter id: The entry's id.
  /// - Throws: The engine's error.
  func removeOutboxEntry(id: Int64) throws

  /// Claims the outbox for one ``MutationOutbox``, so that no second outbox, in this process or
  /// another, delivers the same entries.
  ///
  /// The claim lasts until ``releaseOutbox()``, or until the claiming process ends, whatever the
  /// way (a crash or `SIGKILL` included), so a restart is never locked out by its own past.
  ///
  /// - Parameter owner: Describes the claimant (process, host, date), for the error that a
  ///   second claimant gets.
  /// - Throws: ``MutationOutbox/OutboxClaimedError`` with the owner's description when the
  ///   outbox is claimed; the engine's error when the claim cannot be made.
  func claimOutbox(owner: String) throws

  /// Ends this storage's claim of its outbox, if it has one.
  func releaseOutbox()
}

/// One value of the query cache, as stored.
public struct PersistedQueryEntry: Hashable, Sendable {
  /// The entry's key, from the operation's path or given explicitly.
  public var key: String

  /// The cache's schema version when the entry was written.
  public var version: String

  /// The encoded value.
  public var value: Data

  /// When the value was last updated in its store.
  public var valueUpdatedAt: Date

  /// When the entry was last written or read.
  public var lastAccessedAt: Date

  /// Creates an entry.
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - version: The schema version.
  ///   - value: The encoded value.
  ///   - valueUpdatedAt: When the value was updated.
  ///   - lastAccessedAt: When the entry was last written or read.
  public init(
    key: String,
    version: String,
    value: Data,
    valueUpdatedAt: Date,
    lastAccessedAt: Date
  ) {
    self.key = key
    self.version = version
    self.value = value
    self.valueUpdatedAt = valueUpdatedAt
    self.lastAccessedAt = lastAccessedAt
  }
}
