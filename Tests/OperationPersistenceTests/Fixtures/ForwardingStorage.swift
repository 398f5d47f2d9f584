import Foundation
import OperationPersistence

/// A storage that forwards every requirement to a SQLite file; the fixtures that change a few
/// requirements conform and implement only those.
protocol ForwardingStorage: OperationPersistenceStorage {
  /// The storage that does the work.
  var base: SQLitePersistence { get }
}

extension ForwardingStorage {
  func cacheEntry(forKey key: String) async throws -> PersistedQueryEntry? {
    try await self.base.cacheEntry(forKey: key)
  }

  func writeCacheEntries(
    _ entries: [PersistedQueryEntry],
    accesses: [String: Date],
    bounds: PersistentQueryCache.Bounds
  ) async throws -> Int {
    try await self.base.writeCacheEntries(entries, accesses: accesses, bounds: bounds)
  }

  func removeCacheEntries(forKeys keys: [String]) async throws {
    try await self.base.removeCacheEntries(forKeys: keys)
  }

  func removeCacheEntries(notMatching version: String, updatedBefore date: Date?) async throws
    -> Int
  {
    try await self.base.removeCacheEntries(notMatching: version, updatedBefore: date)
  }

  func cacheStatistics() async throws -> PersistentQueryCache.Statistics {
    try await self.base.cacheStatistics()
  }

  func enqueueOutboxEntry(
    kind: String,
    lane: String,
    idempotencyKey: String,
    arguments: Data,
    at date: Date
  ) async throws -> MutationOutbox.Entry {
    try await self.base.enqueueOutboxEntry(
      kind: kind,
      lane: lane,
      idempotencyKey: idempotencyKey,
      arguments: arguments,
      at: date
    )
  }

  func outboxEntries() async throws -> [MutationOutbox.Entry] {
    try await self.base.outboxEntries()
  }

  func requeueFailedOutboxEntry(id: Int64, at date: Date) async throws -> MutationOutbox.Entry? {
    try await self.base.requeueFailedOutboxEntry(id: id, at: date)
  }

  func removeFailedOutboxEntry(id: Int64) async throws -> Bool {
    try await self.base.removeFailedOutboxEntry(id: id)
  }

  func claimNextOutboxEntry(
    inLane lane: String,
    worker: String,
    at now: Date,
    leaseUntil: Date
  ) async throws -> MutationOutbox.ClaimResult {
    try await self.base.claimNextOutboxEntry(
      inLane: lane,
      worker: worker,
      at: now,
      leaseUntil: leaseUntil
    )
  }

  func renewOutboxClaim(_ claim: MutationOutbox.Claim, until date: Date) async throws
    -> MutationOutbox.Claim
  {
    try await self.base.renewOutboxClaim(claim, until: date)
  }

  func releaseOutboxClaim(
    _ claim: MutationOutbox.Claim,
    lastError: String?,
    at date: Date
  ) async throws {
    try await self.base.releaseOutboxClaim(claim, lastError: lastError, at: date)
  }

  func completeOutboxClaim(_ claim: MutationOutbox.Claim) async throws {
    try await self.base.completeOutboxClaim(claim)
  }

  func failOutboxClaim(
    _ claim: MutationOutbox.Claim,
    lastError: String,
    at date: Date
  ) async throws {
    try await self.base.failOutboxClaim(claim, lastError: lastError, at: date)
  }

  func claimOutbox(owner: String) async throws {
    try await self.base.claimOutbox(owner: owner)
  }

  func releaseOutbox() async {
    await self.base.releaseOutbox()
  }
}
