import Foundation
import OperationPersistence
import OperationSynchronization

/// A storage on a real SQLite file that fails the operations it is told to, on cue, as a full
/// disk would; and, when it `sharesOutbox`, lets several outboxes deliver the file's entries at
/// once, each a worker of its own, as a database that a fleet shares does.
final class FailingStorage: ForwardingStorage, SynchronousCacheReading {
  /// The operations that can fail.
  enum Operation: Hashable, Sendable {
    case writeCache, enqueue, claim, release, remove, fail
  }

  /// The error of a failed operation.
  struct DiskFull: Error, CustomStringConvertible {
    var description: String { "disk I/O error: database or disk is full" }
  }

  let base: SQLitePersistence
  /// Whether outboxes share the storage, relying on claims of entries alone.
  let sharesOutbox: Bool
  private let failures = Lock([Operation: Int]())

  init(base: SQLitePersistence, sharesOutbox: Bool = false) {
    self.base = base
    self.sharesOutbox = sharesOutbox
  }

  /// Fails the next `count` calls of `operation` (`Int.max` for every call until ``heal()``).
  func fail(_ operation: Operation, times count: Int = .max) {
    self.failures.withLock { $0[operation] = count }
  }

  /// Stops failing.
  func heal() {
    self.failures.withLock { $0.removeAll() }
  }

  private func check(_ operation: Operation) throws {
    let fails = self.failures.withLock { failures in
      guard let count = failures[operation], count > 0 else { return false }
      failures[operation] = count - 1
      return true
    }
    if fails { throw DiskFull() }
  }

  func cacheEntryNow(forKey key: String) throws -> PersistedQueryEntry? {
    try self.base.cacheEntryNow(forKey: key)
  }

  func writeCacheEntries(
    _ entries: [PersistedQueryEntry],
    accesses: [String: Date],
    bounds: PersistentQueryCache.Bounds
  ) async throws -> Int {
    try self.check(.writeCache)
    return try await self.base.writeCacheEntries(entries, accesses: accesses, bounds: bounds)
  }

  func enqueueOutboxEntry(
    kind: String,
    lane: String,
    idempotencyKey: String,
    arguments: Data,
    at date: Date
  ) async throws -> MutationOutbox.Entry {
    try self.check(.enqueue)
    return try await self.base.enqueueOutboxEntry(
      kind: kind,
      lane: lane,
      idempotencyKey: idempotencyKey,
      arguments: arguments,
      at: date
    )
  }

  func claimNextOutboxEntry(
    inLane lane: String,
    worker: String,
    at now: Date,
    leaseUntil: Date
  ) async throws -> MutationOutbox.ClaimResult {
    try self.check(.claim)
    return try await self.base.claimNextOutboxEntry(
      inLane: lane,
      worker: worker,
      at: now,
      leaseUntil: leaseUntil
    )
  }

  func releaseOutboxClaim(
    _ claim: MutationOutbox.Claim,
    lastError: String?,
    at date: Date
  ) async throws {
    try self.check(.release)
    try await self.base.releaseOutboxClaim(claim, lastError: lastError, at: date)
  }

  func completeOutboxClaim(_ claim: MutationOutbox.Claim) async throws {
    try self.check(.remove)
    try await self.base.completeOutboxClaim(claim)
  }

  func failOutboxClaim(
    _ claim: MutationOutbox.Claim,
    lastError: String,
    at date: Date
  ) async throws {
    try self.check(.fail)
    try await self.base.failOutboxClaim(claim, lastError: lastError, at: date)
  }

  func claimOutbox(owner: String) async throws {
    guard !self.sharesOutbox else { return }
    try await self.base.claimOutbox(owner: owner)
  }

  func releaseOutbox() async {
    guard !self.sharesOutbox else { return }
    await self.base.releaseOutbox()
  }
}
