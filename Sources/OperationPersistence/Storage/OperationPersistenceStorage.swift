public import Foundation

/// Where ``PersistentQueryCache`` and ``MutationOutbox`` keep their entries.
///
/// ``SQLitePersistence`` is the engine the package ships, on GRDB. Another engine (a network
/// database such as PostgreSQL) conforms by implementing these requirements. Every requirement
/// is `async`, so that an engine can wait for its server; an engine that can answer a cache read
/// at once, in process, also adopts ``SynchronousCacheReading``.
///
/// ## What every engine guarantees
///
/// - **Atomicity.** Each requirement is one transaction: it happens whole or not at all, and a
///   crash never leaves half of one. When a requirement throws, nothing it would have changed
///   has changed, except where its documentation says otherwise.
/// - **No clock of its own.** Every date comes in as a parameter (from the cache's or the
///   outbox's clock), and the engine compares stored dates with those parameters only, never
///   with its own wall clock or its server's `now()`, so that tests drive leases with a manual
///   clock and workers agree on one time line.
/// - **Order.** Outbox entries have increasing ids in the order they were enqueued; a lane is
///   the entries that share its name, in id order.
///
/// ## The outbox as claims
///
/// A worker (one ``MutationOutbox``) delivers an entry only while it holds a *claim* on it: a
/// lease until a date, and a *generation*, an integer stored with the entry that every claim
/// increases. The engine guarantees:
///
/// - **One claim per lane, in order.** ``claimNextOutboxEntry(inLane:worker:at:leaseUntil:)``
///   claims the first entry of its lane that is not failed, and only when that entry has no live
///   lease of another worker (a lease is live while its expiry is later than the `now` passed
///   in). So the entries of a lane are delivered one at a time, oldest first, across workers.
/// - **Takeover.** An expired lease, or a lease of the same worker, is taken over by the next
///   claim, which increases the generation again.
/// - **Fencing.** ``renewOutboxClaim(_:until:)``, ``releaseOutboxClaim(_:lastError:at:)``,
///   ``completeOutboxClaim(_:)`` and ``failOutboxClaim(_:lastError:at:)`` change the entry only
///   when its stored generation is the claim's, and throw ``MutationOutbox/StaleClaimError``
///   otherwise (or when the entry is gone), changing nothing: a worker whose lease expired and
///   was taken over can no longer change the entry, whatever it does late.
///
/// ``claimOutbox(owner:)`` is a separate, coarser claim: the whole outbox of a storage for one
/// ``MutationOutbox`` at a time, which an engine that serves one host (SQLite) uses to refuse a
/// second outbox. An engine made for several workers (a fleet on one database) accepts every
/// owner and relies on the claims of entries alone.
public protocol OperationPersistenceStorage: Sendable {
  // MARK: Query cache

  /// The cache entry for `key`, if there is one.
  ///
  /// - Parameter key: The entry's key.
  /// - Returns: The entry.
  /// - Throws: The engine's error.
  func cacheEntry(forKey key: String) async throws -> PersistedQueryEntry?

  /// Writes `entries` (replacing entries with the same keys), records `accesses` (a last-access
  /// date per key, for the least-recently-used order, never moving a date back), then removes
  /// the least recently used entries beyond the bounds; all in one transaction.
  ///
  /// - Parameters:
  ///   - entries: The entries to write.
  ///   - accesses: Last-access dates by key, for existing entries.
  ///   - bounds: The most entries and bytes to keep.
  /// - Returns: The number of entries removed to stay within the bounds.
  /// - Throws: The engine's error; then nothing was written.
  @discardableResult
  func writeCacheEntries(
    _ entries: [PersistedQueryEntry],
    accesses: [String: Date],
    bounds: PersistentQueryCache.Bounds
  ) async throws -> Int

  /// Removes the entries with the given keys, in one transaction.
  ///
  /// - Parameter keys: The keys.
  /// - Throws: The engine's error.
  func removeCacheEntries(forKeys keys: [String]) async throws

  /// Removes every entry whose version is not `version` or whose value was updated before
  /// `date`, in one transaction.
  ///
  /// - Parameters:
  ///   - version: The version to keep.
  ///   - date: The oldest update date to keep; `nil` keeps every age.
  /// - Returns: The number of entries removed.
  /// - Throws: The engine's error.
  func removeCacheEntries(notMatching version: String, updatedBefore date: Date?) async throws
    -> Int

  /// The number of cache entries, their size and their oldest update.
  ///
  /// - Returns: The statistics.
  /// - Throws: The engine's error.
  func cacheStatistics() async throws -> PersistentQueryCache.Statistics

  // MARK: Outbox entries

  /// Adds a queued entry (no attempts, generation 0, no lease), or returns the entry that
  /// already has `idempotencyKey`, unchanged.
  ///
  /// - Parameters:
  ///   - kind: The registered kind of mutation.
  ///   - lane: The lane the entry is delivered in, in order.
  ///   - idempotencyKey: The key the server deduplicates by; unique among the entries.
  ///   - arguments: The encoded arguments.
  ///   - date: The date of the enqueueing.
  /// - Returns: The entry.
  /// - Throws: The engine's error; then nothing was added.
  func enqueueOutboxEntry(
    kind: String,
    lane: String,
    idempotencyKey: String,
    arguments: Data,
    at date: Date
  ) async throws -> MutationOutbox.Entry

  /// Every outbox entry, in id order.
  ///
  /// - Returns: The entries.
  /// - Throws: The engine's error.
  func outboxEntries() async throws -> [MutationOutbox.Entry]

  /// The entries of `lane` that are not failed, in id order: what ``MutationOutbox/wake(lane:)``
  /// reads when another worker wrote to the lane. The default reads ``outboxEntries()`` and
  /// keeps the lane's.
  ///
  /// - Parameter lane: The lane.
  /// - Returns: The entries.
  /// - Throws: The engine's error.
  func outboxEntries(inLane lane: String) async throws -> [MutationOutbox.Entry]

  /// Queues a failed entry again at the end of its lane: replaces it with a queued entry with a
  /// new id (greater than every id so far), the same kind, lane, idempotency key, arguments,
  /// enqueueing date and last error, no attempts, and a generation no lower than its own.
  ///
  /// - Parameters:
  ///   - id: The failed entry's id.
  ///   - date: The date of the change.
  /// - Returns: The queued entry; `nil` when there is no failed entry with `id` (it is gone, or
  ///   queued or being delivered), and then nothing changed.
  /// - Throws: The engine's error.
  func requeueFailedOutboxEntry(id: Int64, at date: Date) async throws -> MutationOutbox.Entry?

  /// Removes the failed entry with `id`.
  ///
  /// - Parameter id: The entry's id.
  /// - Returns: Whether a failed entry was removed; `false` when there is none with `id` (it is
  ///   gone, or queued or being delivered), and then nothing changed.
  /// - Throws: The engine's error.
  func removeFailedOutboxEntry(id: Int64) async throws -> Bool

  // MARK: Claims

  /// Claims the next entry of `lane` for `worker`, with a lease until `leaseUntil`.
  ///
  /// The next entry is the entry of the lane with the lowest id that is not failed. When it has
  /// a lease of another worker that expires after `now`, the lane is busy. Otherwise (it is
  /// queued, or its lease expired, or the lease is `worker`'s own) the claim takes it, in one
  /// transaction: status ``MutationOutbox/Entry/Status-swift.enum/inFlight``, one more
  /// attempt, `updatedAt` = `now`, the generation increased by one, and the lease (`worker`
  /// until `leaseUntil`) stored with it.
  ///
  /// - Parameters:
  ///   - lane: The lane.
  ///   - worker: Who claims, as ``MutationOutbox/worker``.
  ///   - now: The claimant's current date, which decides whether a lease expired.
  ///   - leaseUntil: When the new lease expires unless renewed.
  /// - Returns: The claim; ``MutationOutbox/ClaimResult/busy(until:)`` with the live lease's
  ///   expiry; or ``MutationOutbox/ClaimResult/empty`` when the lane has no entry that is not
  ///   failed.
  /// - Throws: The engine's error; then nothing changed.
  func claimNextOutboxEntry(
    inLane lane: String,
    worker: String,
    at now: Date,
    leaseUntil: Date
  ) async throws -> MutationOutbox.ClaimResult

  /// Extends a claim's lease to `date`, when the entry's generation is still the claim's (an
  /// expired lease that no one took over is renewed).
  ///
  /// - Parameters:
  ///   - claim: The claim.
  ///   - date: The new expiry.
  /// - Returns: The claim with its new expiry.
  /// - Throws: ``MutationOutbox/StaleClaimError`` when another claim took the entry or it is
  ///   gone; the engine's error. Either way nothing changed.
  func renewOutboxClaim(_ claim: MutationOutbox.Claim, until date: Date) async throws
    -> MutationOutbox.Claim

  /// Gives a claimed entry back to its lane, after a failure that may pass or at a stop: status
  /// queued, with `lastError`, `updatedAt` = `date`, and no lease (its attempts and generation
  /// stay), so that the next claim of the lane, by any worker, takes it at once.
  ///
  /// - Parameters:
  ///   - claim: The claim.
  ///   - lastError: The description of the failure; `nil` keeps the stored one (a worker that
  ///     stops gives its claims back without a failure).
  ///   - date: The date of the change.
  /// - Throws: ``MutationOutbox/StaleClaimError`` when the generation is not the claim's; the
  ///   engine's error. Either way nothing changed.
  func releaseOutboxClaim(
    _ claim: MutationOutbox.Claim,
    lastError: String?,
    at date: Date
  ) async throws

  /// Removes a claimed entry once delivered.
  ///
  /// - Parameter claim: The claim.
  /// - Throws: ``MutationOutbox/StaleClaimError`` when the generation is not the claim's; the
  ///   engine's error. Either way nothing changed.
  func completeOutboxClaim(_ claim: MutationOutbox.Claim) async throws

  /// Ends a claimed entry as failed for good: status failed, with `lastError`, `updatedAt` =
  /// `date`, and no lease; it stays for the app to requeue or remove.
  ///
  /// - Parameters:
  ///   - claim: The claim.
  ///   - lastError: The description of the failure.
  ///   - date: The date of the change.
  /// - Throws: ``MutationOutbox/StaleClaimError`` when the generation is not the claim's; the
  ///   engine's error. Either way nothing changed.
  func failOutboxClaim(
    _ claim: MutationOutbox.Claim,
    lastError: String,
    at date: Date
  ) async throws

  // MARK: Owning the outbox

  /// Claims the outbox for one ``MutationOutbox``, so that no second outbox, in this process or
  /// another, delivers the same entries; an engine made for several workers accepts every
  /// owner and does nothing here.
  ///
  /// The claim lasts until ``releaseOutbox()``, or until the claiming process ends, whatever the
  /// way (a crash or `SIGKILL` included), so a restart is never locked out by its own past. An
  /// engine whose claim proves that no other worker is alive (SQLite's lock) may end every
  /// lease of an entry when the claim succeeds, so that the entries a dead process held are
  /// delivered again at once instead of after their leases.
  ///
  /// - Parameter owner: Describes the claimant (process, host, date), for the error that a
  ///   second claimant gets.
  /// - Throws: ``MutationOutbox/OutboxClaimedError`` with the owner's description when the
  ///   outbox is claimed; the engine's error when the claim cannot be made.
  func claimOutbox(owner: String) async throws

  /// Ends this storage's claim of its outbox, if it has one.
  func releaseOutbox() async
}

extension OperationPersistenceStorage {
  /// The entries of `lane` that are not failed, read through ``outboxEntries()``.
  ///
  /// - Parameter lane: The lane.
  /// - Returns: The entries.
  /// - Throws: The engine's error.
  public func outboxEntries(inLane lane: String) async throws -> [MutationOutbox.Entry] {
    try await self.outboxEntries().filter { $0.lane == lane && $0.status != .failed }
  }
}

/// A storage that reads a cache entry at once, in process, with no suspension: the fast path of
/// ``PersistentQueryCache``, which then gives a store created for a persisted operation its
/// saved value before the store is returned.
///
/// A storage without it still works: the store is created without the saved value, and the
/// cache reads the entry in the background and sets it on the store only if the store recorded
/// no value meanwhile (the newest value wins).
public protocol SynchronousCacheReading: OperationPersistenceStorage {
  /// The cache entry for `key`, if there is one, read at once.
  ///
  /// - Parameter key: The entry's key.
  /// - Returns: The entry.
  /// - Throws: The engine's error.
  func cacheEntryNow(forKey key: String) throws -> PersistedQueryEntry?
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
