import Foundation
import OperationPersistence
import OperationSynchronization
import OperationTestSupport

/// A directory of its own under the temporary directory, removed when the value is released.
final class TemporaryDirectory: Sendable {
  let path: String

  init() {
    self.path =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("operation-service-lifecycle-\(UUID().uuidString)").path
    try! FileManager.default.createDirectory(atPath: self.path, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(atPath: self.path)
  }

  /// The path of a file in the directory.
  func file(_ name: String) -> String {
    (self.path as NSString).appendingPathComponent(name)
  }
}

/// An upstream server that records the deliveries it starts and completes, and holds each one
/// until it is released.
final class HeldUpstream: Sendable {
  private struct State {
    var started = [String]()
    var completed = [String]()
  }

  private let state = Lock(State())
  private let requested = Gate()
  private let released = Gate()

  var started: [String] { self.state.withLock { $0.started } }
  var completed: [String] { self.state.withLock { $0.completed } }

  /// Waits until a delivery has started.
  func waitForRequest() async {
    await self.requested.wait()
  }

  /// Lets every delivery, held or to come, complete.
  func release() {
    self.released.open()
  }

  func receive(_ text: String) async throws -> String {
    self.state.withLock { $0.started.append(text) }
    self.requested.open()
    await self.released.wait()
    try Task.checkCancellation()
    self.state.withLock { $0.completed.append(text) }
    return "delivered \(text)"
  }
}

/// A storage whose disk is full: it reads an empty cache and refuses every write.
struct FullDiskStorage: OperationPersistenceStorage {
  struct DiskFull: Error {}

  func cacheEntry(forKey key: String) async throws -> PersistedQueryEntry? { nil }

  func writeCacheEntries(
    _ entries: [PersistedQueryEntry],
    accesses: [String: Date],
    bounds: PersistentQueryCache.Bounds
  ) async throws -> Int {
    throw DiskFull()
  }

  func removeCacheEntries(forKeys keys: [String]) async throws { throw DiskFull() }

  func removeCacheEntries(notMatching version: String, updatedBefore date: Date?) async throws
    -> Int
  { 0 }

  func cacheStatistics() async throws -> PersistentQueryCache.Statistics {
    PersistentQueryCache.Statistics(entryCount: 0, byteCount: 0, oldestValueUpdatedAt: nil)
  }

  func enqueueOutboxEntry(
    kind: String,
    lane: String,
    idempotencyKey: String,
    arguments: Data,
    at date: Date
  ) async throws -> MutationOutbox.Entry {
    throw DiskFull()
  }

  func outboxEntries() async throws -> [MutationOutbox.Entry] { [] }

  func requeueFailedOutboxEntry(id: Int64, at date: Date) async throws -> MutationOutbox.Entry? {
    throw DiskFull()
  }

  func removeFailedOutboxEntry(id: Int64) async throws -> Bool { throw DiskFull() }

  func claimNextOutboxEntry(
    inLane lane: String,
    worker: String,
    at now: Date,
    leaseUntil: Date
  ) async throws -> MutationOutbox.ClaimResult {
    throw DiskFull()
  }

  func renewOutboxClaim(_ claim: MutationOutbox.Claim, until date: Date) async throws
    -> MutationOutbox.Claim
  {
    throw DiskFull()
  }

  func releaseOutboxClaim(_ claim: MutationOutbox.Claim, lastError: String?, at date: Date)
    async throws
  {
    throw DiskFull()
  }

  func completeOutboxClaim(_ claim: MutationOutbox.Claim) async throws { throw DiskFull() }

  func failOutboxClaim(_ claim: MutationOutbox.Claim, lastError: String, at date: Date)
    async throws
  {
    throw DiskFull()
  }

  func claimOutbox(owner: String) async throws {}

  func releaseOutbox() async {}
}
