import Foundation
import OperationPersistence
import Synchronization

/// A storage on a real SQLite file that fails the operations it is told to, on cue, as a full
/// disk would.
final class FailingStorage: OperationPersistenceStorage {
  /// The operations that can fail.
  enum Operation: Hashable, Sendable {
    case writeCache, enqueue, update, remove
  }

  /// The error of a failed operation.
  struct DiskFull: Error, CustomStringConvertible {
    var description: String { "disk I/O error: database or disk is full" }
  }

  let base: SQLitePersistence
  private let failures = Mutex([Operation: Int]())

  init(base: SQLitePersistence) {
    self.base = base
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

  func cacheEntry(forKey key: String) throws -> PersistedQueryEntry? {
    try self.base.cacheEntry(forKey: key)
  }

  func writeCacheEntries(
    _ entries: [PersistedQueryEntry],
    accesses: [String: Date],
    bounds: PersistentQueryCache.Bounds
  ) throws -> Int {
    try self.check(.writeCache)
    return try self.base.writeCacheEntries(entries, accesses: accesses, bounds: bounds)
  }

  func removeCacheEntries(forKeys keys: [String]) throws {
    try self.base.removeCacheEntries(forKeys: keys)
  }

  func removeCacheEntries(notMatching version: String, updatedBefore date: Date?) throws -> Int {
    try self.base.removeCacheEntries(notMatching: version, updatedBefore: date)
  }

  func cacheStatistics() throws -> PersistentQueryCache.Statistics {
    try self.base.cacheStatistics()
  }

  func enqueueOutboxEntry(
    kind: String,
    lane: String,
    idempotencyKey: String,
    arguments: Data,
    at date: Date
  ) throws -> MutationOutbox.Entry {
    try self.check(.enqueue)
    return try self.base.enqueueOutboxEntry(
      kind: kind,
      lane: lane,
      idempotencyKey: idempotencyKey,
      arguments: arguments,
      at: date
    )
  }

  func outboxEntries() throws -> [MutationOutbox.Entry] {
    try self.base.outboxEntries()
  }

  func updateOutboxEntry(_ entry: MutationOutbox.Entry) throws {
    try self.check(.update)
    try self.base.updateOutboxEntry(entry)
  }

  func removeOutboxEntry(id: Int64) throws {
    try self.check(.remove)
    try self.base.removeOutboxEntry(id: id)
  }

  func claimOutbox(owner: String) throws {
    try self.base.claimOutbox(owner: owner)
  }

  func releaseOutbox() {
    self.base.releaseOutbox()
  }
}
