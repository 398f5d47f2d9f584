public import Foundation
import GRDB
import OperationCore
import OperationSynchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The package's storage engine: one SQLite database file, through GRDB.
///
/// The database is opened in WAL mode, so readers never wait for the writer, and writers from
/// other connections or processes wait up to `busyTimeout` for each other instead of failing.
/// Every change is one transaction. Its `async` requirements run on GRDB's connections and
/// suspend the caller meanwhile, without blocking its thread; a cancelled caller's transaction is
/// rolled back whole. A cache read also has the synchronous fast path of
/// ``SynchronousCacheReading``, which reads at once on the calling thread.
///
/// Claims of outbox entries are fenced by a `generation` column, which every claim increases,
/// and leased by `leaseOwner` and `leaseExpiresAt` columns (added to files of older versions
/// when they are opened, keeping their rows).
///
/// The outbox is claimed with an exclusive `flock(2)` lock on a file beside the database
/// (`<path>-outbox.lock`), which holds the owner's description: the kernel ends the claim when
/// its process ends, however it ends.
///
/// ```swift
/// let persistence = try SQLitePersistence(
///   path: URL.applicationSupportDirectory.appending(path: "operations.sqlite").path
/// )
/// ```
public final class SQLitePersistence: OperationPersistenceStorage, SynchronousCacheReading {
  private let pool: DatabasePool

  /// The descriptor of the outbox's lock file while this storage claims it.
  private let outboxLock = Lock<Int32?>(nil)

  /// The path of the database file.
  public let path: String

  /// Opens (creating if needed) the database at `path`, and brings its tables up to date.
  ///
  /// - Parameters:
  ///   - path: The database file; its directory must exist.
  ///   - busyTimeout: How long a write waits for another connection's write.
  /// - Throws: GRDB's error when the file cannot be opened or migrated.
  public init(path: String, busyTimeout: TimeInterval = 10) throws {
    var configuration = Configuration()
    configuration.busyMode = .timeout(busyTimeout)
    configuration.label = "OperationPersistence"
    self.path = path
    self.pool = try DatabasePool(path: path, configuration: configuration)
    try Self.migrator.migrate(self.pool)
  }

  private static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
      try db.execute(
        sql: """
          CREATE TABLE queryCache (
            key TEXT PRIMARY KEY NOT NULL,
            version TEXT NOT NULL,
            value BLOB NOT NULL,
            valueUpdatedAt DOUBLE NOT NULL,
            lastAccessedAt DOUBLE NOT NULL
          );
          CREATE INDEX queryCacheByAccess ON queryCache(lastAccessedAt, key);
          CREATE TABLE outbox (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL,
            lane TEXT NOT NULL,
            idempotencyKey TEXT NOT NULL UNIQUE,
            arguments BLOB NOT NULL,
            status TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            lastError TEXT,
            enqueuedAt DOUBLE NOT NULL,
            updatedAt DOUBLE NOT NULL
          );
          """
      )
    }
    // NB: Claims of entries (issue 27): the generation that fences them and the lease. Rows of
    // older files keep their values, with generation 0 and no lease.
    migrator.registerMigration("v2-claims") { db in
      try db.execute(
        sql: """
          ALTER TABLE outbox ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
          ALTER TABLE outbox ADD COLUMN leaseOwner TEXT;
          ALTER TABLE outbox ADD COLUMN leaseExpiresAt DOUBLE;
          CREATE INDEX outboxByLane ON outbox(lane, id);
          """
      )
    }
    return migrator
  }

  // MARK: Query cache

  /// The cache entry for `key`, if there is one.
  public func cacheEntry(forKey key: String) async throws -> PersistedQueryEntry? {
    try self.cacheEntryNow(forKey: key)
  }

  /// The cache entry for `key`, if there is one, read at once.
  public func cacheEntryNow(forKey key: String) throws -> PersistedQueryEntry? {
    try self.pool.read { db in
      let select = try db.cachedStatement(sql: "SELECT * FROM queryCache WHERE key = ?")
      return try Row.fetchOne(select, arguments: [key]).map(Self.cacheEntry(from:))
    }
  }

  /// Writes entries and accesses, then trims to the bounds, in one transaction.
  @discardableResult
  public func writeCacheEntries(
    _ entries: [PersistedQueryEntry],
    accesses: [String: Date],
    bounds: PersistentQueryCache.Bounds
  ) async throws -> Int {
    try await self.pool.write { db in
      let upsert = try db.cachedStatement(
        sql: """
          INSERT OR REPLACE INTO queryCache (key, version, value, valueUpdatedAt, lastAccessedAt)
          VALUES (?, ?, ?, ?, ?)
          """
      )
      for entry in entries {
        try upsert.execute(arguments: [
          entry.key, entry.version, entry.value, entry.valueUpdatedAt.timeIntervalSince1970,
          entry.lastAccessedAt.timeIntervalSince1970,
        ])
      }
      let touch = try db.cachedStatement(
        sql: "UPDATE queryCache SET lastAccessedAt = max(lastAccessedAt, ?) WHERE key = ?"
      )
      for (key, date) in accesses {
        try touch.execute(arguments: [date.timeIntervalSince1970, key])
      }
      return try Self.trim(db, to: bounds)
    }
  }

  private static func trim(_ db: Database, to bounds: PersistentQueryCache.Bounds) throws -> Int {
    var removed = 0
    if let maxCount = bounds.maxEntryCount {
      try db.execute(
        sql: """
          DELETE FROM queryCache WHERE key IN (
            SELECT key FROM queryCache ORDER BY lastAccessedAt DESC, key DESC LIMIT -1 OFFSET ?
          )
          """,
        arguments: [maxCount]
      )
      removed += db.changesCount
    }
    if let maxBytes = bounds.maxByteCount {
      // NB: Keeps the most recently used entries whose running total of sizes fits.
      try db.execute(
        sql: """
          DELETE FROM queryCache WHERE key IN (
            SELECT key FROM (
              SELECT key, SUM(length(value)) OVER (
                ORDER BY lastAccessedAt DESC, key DESC ROWS UNBOUNDED PRECEDING
              ) AS total FROM queryCache
            ) WHERE total > ?
          )
          """,
        arguments: [maxBytes]
      )
      removed += db.changesCount
    }
    return removed
  }

  /// Removes the entries with the given keys.
  public func removeCacheEntries(forKeys keys: [String]) async throws {
    guard !keys.isEmpty else { return }
    try await self.pool.write { db in
      let delete = try db.cachedStatement(sql: "DELETE FROM queryCache WHERE key = ?")
      for key in keys {
        try delete.execute(arguments: [key])
      }
    }
  }

  /// Removes entries of other versions and entries updated before `date`.
  public func removeCacheEntries(notMatching version: String, updatedBefore date: Date?)
    async throws -> Int
  {
    try await self.pool.write { db in
      try db.execute(
        sql: "DELETE FROM queryCache WHERE version != ? OR valueUpdatedAt < ?",
        arguments: [version, date?.timeIntervalSince1970 ?? -Double.infinity]
      )
      return db.changesCount
    }
  }

  /// The number of entries, their total size and the oldest update.
  public func cacheStatistics() async throws -> PersistentQueryCache.Statistics {
    try await self.pool.read { db in
      let row = try Row.fetchOne(
        db,
        sql: """
          SELECT COUNT(*) AS count, COALESCE(SUM(length(value)), 0) AS bytes,
            MIN(valueUpdatedAt) AS oldest FROM queryCache
          """
      )
      let oldest: Double? = row?["oldest"]
      return PersistentQueryCache.Statistics(
        entryCount: row?["count"] ?? 0,
        byteCount: row?["bytes"] ?? 0,
        oldestValueUpdatedAt: oldest.map(Date.init(timeIntervalSince1970:))
      )
    }
  }

  private static func cacheEntry(from row: Row) -> PersistedQueryEntry {
    PersistedQueryEntry(
      key: row["key"],
      version: row["version"],
      value: row["value"],
      valueUpdatedAt: Date(timeIntervalSince1970: row["valueUpdatedAt"]),
      lastAccessedAt: Date(timeIntervalSince1970: row["lastAccessedAt"])
    )
  }

  // MARK: Outbox

  /// Adds a queued entry, or returns the existing entry with the same idempotency key.
  public func enqueueOutboxEntry(
    kind: String,
    lane: String,
    idempotencyKey: String,
    arguments: Data,
    at date: Date
  ) async throws -> MutationOutbox.Entry {
    try await self.pool.write { db in
      let time = date.timeIntervalSince1970
      try db.execute(
        sql: """
          INSERT OR IGNORE INTO outbox
            (kind, lane, idempotencyKey, arguments, status, attempts, enqueuedAt, updatedAt)
          VALUES (?, ?, ?, ?, 'queued', 0, ?, ?)
          """,
        arguments: [kind, lane, idempotencyKey, arguments, time, time]
      )
      let row = try Row.fetchOne(
        db,
        sql: "SELECT * FROM outbox WHERE idempotencyKey = ?",
        arguments: [idempotencyKey]
      )
      // NB: The row was inserted or already there, in this transaction.
      return Self.outboxEntry(from: row!)
    }
  }

  /// Every outbox entry, in id order.
  public func outboxEntries() async throws -> [MutationOutbox.Entry] {
    try await self.pool.read { db in
      try Row.fetchAll(db, sql: "SELECT * FROM outbox ORDER BY id").map(Self.outboxEntry(from:))
    }
  }

  /// Replaces a failed entry with a queued one at the end of its lane.
  public func requeueFailedOutboxEntry(id: Int64, at date: Date) async throws
    -> MutationOutbox.Entry?
  {
    try await self.pool.write { db in
      guard
        let row = try Row.fetchOne(
          db,
          sql: "SELECT * FROM outbox WHERE id = ? AND status = 'failed'",
          arguments: [id]
        )
      else { return nil }
      try db.execute(sql: "DELETE FROM outbox WHERE id = ?", arguments: [id])
      let generation: Int64 = row["generation"]
      try db.execute(
        sql: """
          INSERT INTO outbox (kind, lane, idempotencyKey, arguments, status, attempts, lastError,
            enqueuedAt, updatedAt, generation)
          VALUES (?, ?, ?, ?, 'queued', 0, ?, ?, ?, ?)
          """,
        arguments: [
          row["kind"], row["lane"], row["idempotencyKey"], row["arguments"], row["lastError"],
          row["enqueuedAt"], date.timeIntervalSince1970, generation,
        ]
      )
      let inserted = try Row.fetchOne(
        db,
        sql: "SELECT * FROM outbox WHERE id = ?",
        arguments: [db.lastInsertedRowID]
      )
      // NB: The row was inserted in this transaction.
      return Self.outboxEntry(from: inserted!)
    }
  }

  /// Removes the failed entry with `id`.
  public func removeFailedOutboxEntry(id: Int64) async throws -> Bool {
    try await self.pool.write { db in
      try db.execute(
        sql: "DELETE FROM outbox WHERE id = ? AND status = 'failed'",
        arguments: [id]
      )
      return db.changesCount > 0
    }
  }

  // MARK: Claims

  /// Claims the lane's next entry, in one transaction.
  public func claimNextOutboxEntry(
    inLane lane: String,
    worker: String,
    at now: Date,
    leaseUntil: Date
  ) async throws -> MutationOutbox.ClaimResult {
    try await self.pool.write { db in
      let next = try db.cachedStatement(
        sql: "SELECT * FROM outbox WHERE lane = ? AND status != 'failed' ORDER BY id LIMIT 1"
      )
      guard let row = try Row.fetchOne(next, arguments: [lane]) else { return .empty }
      let owner: String? = row["leaseOwner"]
      let expiry: Double? = row["leaseExpiresAt"]
      if let owner, let expiry, owner != worker, expiry > now.timeIntervalSince1970 {
        return .busy(until: Date(timeIntervalSince1970: expiry))
      }
      let id: Int64 = row["id"]
      let claim = try db.cachedStatement(
        sql: """
          UPDATE outbox SET status = 'inFlight', attempts = attempts + 1,
            generation = generation + 1, leaseOwner = ?, leaseExpiresAt = ?, updatedAt = ?
          WHERE id = ?
          """
      )
      try claim.execute(arguments: [
        worker, leaseUntil.timeIntervalSince1970, now.timeIntervalSince1970, id,
      ])
      // NB: The row is there: this transaction read it.
      let claimed = try Row.fetchOne(db, sql: "SELECT * FROM outbox WHERE id = ?", arguments: [id])!
      return .claimed(
        MutationOutbox.Claim(
          entry: Self.outboxEntry(from: claimed),
          worker: worker,
          generation: claimed["generation"],
          leaseExpiresAt: leaseUntil
        )
      )
    }
  }

  /// Extends the claim's lease, when its generation is the entry's.
  public func renewOutboxClaim(_ claim: MutationOutbox.Claim, until date: Date) async throws
    -> MutationOutbox.Claim
  {
    try await self.fenced(
      claim,
      sql: "UPDATE outbox SET leaseExpiresAt = ? WHERE id = ? AND generation = ?",
      arguments: [date.timeIntervalSince1970]
    )
    var renewed = claim
    renewed.leaseExpiresAt = date
    return renewed
  }

  /// Requeues the claimed entry with its error, when the claim's generation is the entry's.
  public func releaseOutboxClaim(
    _ claim: MutationOutbox.Claim,
    lastError: String?,
    at date: Date
  ) async throws {
    try await self.fenced(
      claim,
      sql: """
        UPDATE outbox SET status = 'queued', lastError = COALESCE(?, lastError), updatedAt = ?,
          leaseOwner = NULL,
          leaseExpiresAt = NULL
        WHERE id = ? AND generation = ?
        """,
      arguments: [lastError, date.timeIntervalSince1970]
    )
  }

  /// Removes the claimed entry, when the claim's generation is the entry's.
  public func completeOutboxClaim(_ claim: MutationOutbox.Claim) async throws {
    try await self.fenced(claim, sql: "DELETE FROM outbox WHERE id = ? AND generation = ?")
  }

  /// Ends the claimed entry as failed, when the claim's generation is the entry's.
  public func failOutboxClaim(
    _ claim: MutationOutbox.Claim,
    lastError: String,
    at date: Date
  ) async throws {
    try await self.fenced(
      claim,
      sql: """
        UPDATE outbox SET status = 'failed', lastError = ?, updatedAt = ?, leaseOwner = NULL,
          leaseExpiresAt = NULL
        WHERE id = ? AND generation = ?
        """,
      arguments: [lastError, date.timeIntervalSince1970]
    )
  }

  /// Runs `sql`, whose last two arguments are the claim's entry id and generation, in one
  /// transaction; throws ``MutationOutbox/StaleClaimError`` when it changed no row.
  private func fenced(
    _ claim: MutationOutbox.Claim,
    sql: String,
    arguments: StatementArguments = []
  ) async throws {
    try await self.pool.write { db in
      try db.execute(
        sql: sql,
        arguments: arguments + [claim.entry.id, claim.generation]
      )
      guard db.changesCount == 0 else { return }
      let current = try Int64.fetchOne(
        db,
        sql: "SELECT generation FROM outbox WHERE id = ?",
        arguments: [claim.entry.id]
      )
      throw MutationOutbox.StaleClaimError(claim: claim, currentGeneration: current)
    }
  }

  /// The path of the file whose lock claims the outbox.
  public var outboxLockPath: String {
    self.path + "-outbox.lock"
  }

  /// Claims the outbox with an exclusive lock on ``outboxLockPath``, writes `owner` in it, and
  /// ends every lease of an entry: while the lock is held no other outbox of this host can
  /// deliver the file's entries, so the leases left are those of outboxes that ended (a crash
  /// included), and their entries are delivered again at once.
  public func claimOutbox(owner: String) async throws {
    try self.lockOutbox(owner: owner)
    do {
      try await self.pool.write { db in
        try db.execute(
          sql: """
            UPDATE outbox SET leaseOwner = NULL, leaseExpiresAt = NULL
            WHERE leaseExpiresAt IS NOT NULL
            """
        )
      }
    } catch {
      self.unlockOutbox()
      throw error
    }
  }

  private func lockOutbox(owner: String) throws {
    try self.outboxLock.withLock { descriptor in
      guard descriptor == nil else {
        throw MutationOutbox.OutboxClaimedError(
          storage: self.path,
          owner: Self.readOwner(at: self.outboxLockPath) ?? "another outbox of this storage"
        )
      }
      let file = open(self.outboxLockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
      guard file >= 0 else { throw SystemError(operation: "open", path: self.outboxLockPath) }
      guard flock(file, LOCK_EX | LOCK_NB) == 0 else {
        let error = errno
        close(file)
        guard error == EWOULDBLOCK else {
          throw SystemError(operation: "flock", path: self.outboxLockPath, code: error)
        }
        throw MutationOutbox.OutboxClaimedError(
          storage: self.path,
          owner: Self.readOwner(at: self.outboxLockPath) ?? "another process"
        )
      }
      let text = Array(owner.utf8)
      _ = ftruncate(file, 0)
      _ = text.withUnsafeBytes { pwrite(file, $0.baseAddress, $0.count, 0) }
      descriptor = file
    }
  }

  /// Releases the lock on ``outboxLockPath``.
  public func releaseOutbox() async {
    self.unlockOutbox()
  }

  private func unlockOutbox() {
    guard
      let file = self.outboxLock.withLock({ descriptor in
        defer { descriptor = nil }
        return descriptor
      })
    else { return }
    // NB: Unlocked before it is closed: the lock belongs to the open file, which a process that
    // another thread is spawning shares until it executes its program (the descriptor is
    // close-on-exec, not close-on-fork), so closing this descriptor alone could leave the outbox
    // claimed for a moment, and a claim right after the release failed. The file stays, empty,
    // for the next owner.
    _ = ftruncate(file, 0)
    _ = flock(file, LOCK_UN)
    close(file)
  }

  deinit {
    self.unlockOutbox()
  }

  private static func readOwner(at path: String) -> String? {
    guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else {
      return nil
    }
    return String(decoding: data, as: UTF8.self)
  }

  private static func outboxEntry(from row: Row) -> MutationOutbox.Entry {
    let status: String = row["status"]
    return MutationOutbox.Entry(
      id: row["id"],
      kind: row["kind"],
      lane: row["lane"],
      idempotencyKey: row["idempotencyKey"],
      arguments: row["arguments"],
      status: MutationOutbox.Entry.Status(rawValue: status) ?? .queued,
      attempts: row["attempts"],
      lastError: row["lastError"],
      enqueuedAt: Date(timeIntervalSince1970: row["enqueuedAt"]),
      updatedAt: Date(timeIntervalSince1970: row["updatedAt"])
    )
  }
}

/// A system call failed.
struct SystemError: Error, CustomStringConvertible {
  let operation: String
  let path: String
  var code: Int32 = errno

  var description: String {
    "\(self.operation) of \(self.path) failed: \(String(cString: strerror(self.code)))"
  }
}
