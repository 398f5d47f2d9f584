// NB: Over 600 lines, on purpose: one class that implements the storage protocol's requirements
// for the query cache and the outbox, each with its SQL, its deadline and its errors beside it, and
// the schema they share. What serves a fleet (invalidation log, fill leases, wake-ups) is in
// `PostgresPersistence+Fleet.swift` and the `PostgresFleet` files.

public import Foundation
import Logging
public import OperationCore
public import OperationPersistence
public import PostgresNIO

/// A query cache and a mutation outbox in one PostgreSQL database, shared by every instance of
/// a fleet: ``PersistentQueryCache`` and ``MutationOutbox`` run on it as they run on
/// ``SQLitePersistence``.
///
/// ```swift
/// let postgres = PostgresClient(configuration: configuration)  // Run it in your ServiceGroup.
/// let persistence = try await PostgresPersistence(client: postgres)
/// let cache = try await PersistentQueryCache(storage: persistence, version: "2")
/// let outbox = try await MutationOutbox(storage: persistence, worker: "api-1")
/// ```
///
/// ## What it adds to the storage's contract
///
/// - **Several workers.** ``claimOutbox(owner:)`` accepts every owner: workers on any instance
///   deliver the same outbox, and the claims of entries (a lease and a generation, fenced) keep
///   one entry of a lane in flight at a time, in order. The head of a lane is locked with
///   `FOR UPDATE SKIP LOCKED`, so a worker never waits on another's transaction, and never
///   skips past a head that another worker is claiming.
/// - **Wake-ups, not polling.** Enqueueing, requeueing and giving back an entry send a
///   notification on the namespace's channel, at commit, with the entry's lane;
///   ``PostgresFleet`` delivers it to the instance's outboxes.
/// - **Transactional enqueueing.** ``enqueueOutboxEntry(kind:arguments:lane:idempotencyKey:at:on:)``
///   writes an entry inside the caller's own transaction: a rolled-back business transaction
///   leaves no entry and wakes no worker.
/// - **The newest value wins** in the cache: a write never replaces a value that another
///   instance updated later.
///
/// Every date is a parameter (the storage compares them, never `now()`), as the protocol asks;
/// the instances of a fleet should share a time line (NTP-synchronized wall clocks), since a
/// lease expires by the clock of the instance that looks at it.
///
/// Failures of the server reach callers as ``PostgresStorageError``, which says what the
/// storage was doing and carries the server's message.
public final class PostgresPersistence: OperationPersistenceStorage {
  /// The connection pool; the app runs it (`PostgresClient.run()`), in its `ServiceGroup`.
  public let client: PostgresClient

  /// The tables and the channel this storage uses.
  public let namespace: PostgresNamespace

  /// The longest a call of the storage waits for a connection and the server's answer.
  public let timeout: OperationDuration

  let logger: Logger
  private let delayer: any OperationDelayer & Sendable

  /// Creates the namespace's tables if they are missing, and returns a storage on them.
  ///
  /// - Parameters:
  ///   - client: The connection pool, which the app runs.
  ///   - namespace: The tables and channel of the fleet; ``PostgresNamespace/default`` by
  ///     default.
  ///   - timeout: The longest a call waits for a connection and the server's answer; then it
  ///     throws ``PostgresStorageError``. 10 seconds by default. (postgres-nio's pool waits for
  ///     a connection for as long as the server is down; the storage never does.)
  ///   - delayer: What waits out `timeout`.
  ///   - logger: Where postgres-nio logs the storage's queries; nothing by default.
  /// - Throws: ``PostgresStorageError`` when the tables cannot be created (the server is down,
  ///   the user may not create tables).
  public init(
    client: PostgresClient,
    namespace: PostgresNamespace = .default,
    timeout: OperationDuration = .seconds(10),
    delayer: any OperationDelayer & Sendable = ClockDelayer(clock: ContinuousClock()),
    logger: Logger = Logger(label: "OperationPostgres", factory: { _ in SwiftLogNoOpLogHandler() })
  ) async throws {
    self.client = client
    self.namespace = namespace
    self.timeout = timeout
    self.delayer = delayer
    self.logger = logger
    try await self.transaction("create the schema") { connection in
      // NB: Two instances that start at once would race on `CREATE ... IF NOT EXISTS` (it is
      // not atomic against itself); the lock serializes them, and ends with the transaction.
      try await connection.query(
        "SELECT pg_advisory_xact_lock(hashtext(\(namespace.name)))",
        logger: self.logger
      )
      for statement in namespace.schema {
        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
      }
    }
  }

  // MARK: Running statements

  /// Runs `body` within ``timeout``; throws ``PostgresStorageError`` past it, having cancelled
  /// `body`.
  func withinTimeout<Result: Sendable>(
    _ action: String,
    _ body: @escaping @Sendable () async throws -> Result
  ) async throws -> Result {
    try await withThrowingTaskGroup(of: Result?.self) { group in
      group.addTask { try await body() }
      group.addTask { [delayer, timeout] in
        try await delayer.delay(for: timeout)
        return nil
      }
      defer { group.cancelAll() }
      // NB: The group has two tasks, so it has a first result.
      guard let result = try await group.next()! else {
        throw PostgresStorageError(
          action: action,
          message: "no connection or no answer within \(self.timeout); is the server up?"
        )
      }
      return result
    }
  }

  /// Runs `body` in one transaction on one connection of the pool, within ``timeout``; wraps the
  /// server's errors.
  func transaction<Result: Sendable>(
    _ action: String,
    _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
  ) async throws -> Result {
    do {
      return try await self.withinTimeout(action) {
        try await self.client.withConnection { connection in
          try await connection.withTransaction(logger: self.logger) { connection in
            try await body(connection)
          }
        }
      }
    } catch let error as PostgresTransactionError {
      if let closureError = error.closureError, Self.isOwnError(closureError) {
        throw closureError
      }
      throw PostgresStorageError(action: action, underlying: error)
    } catch {
      throw Self.isOwnError(error) ? error : PostgresStorageError(action: action, underlying: error)
    }
  }

  /// Runs one statement, outside of any transaction, and returns its rows.
  func rows(_ action: String, _ query: PostgresQuery) async throws -> [PostgresRow] {
    do {
      return try await self.withinTimeout(action) {
        try await self.client.withConnection { connection in
          try await Self.collect(connection.query(query, logger: self.logger))
        }
      }
    } catch {
      throw Self.isOwnError(error) ? error : PostgresStorageError(action: action, underlying: error)
    }
  }

  static func collect(_ sequence: PostgresRowSequence) async throws -> [PostgresRow] {
    var rows = [PostgresRow]()
    for try await row in sequence {
      rows.append(row)
    }
    return rows
  }

  private static func isOwnError(_ error: any Error) -> Bool {
    error is MutationOutbox.StaleClaimError || error is PostgresStorageError
      || error is CancellationError
  }

  /// Sends `payload` on the namespace's channel when the transaction of `connection` commits.
  func notify(_ payload: String, on connection: PostgresConnection) async throws {
    try await connection.query(
      "SELECT pg_notify(\(self.namespace.channel), \(payload))",
      logger: self.logger
    )
  }

  private var cache: String { self.namespace.cacheTable }
  private var outbox: String { self.namespace.outboxTable }

  // MARK: Query cache

  /// The cache entry for `key`, if there is one.
  public func cacheEntry(forKey key: String) async throws -> PersistedQueryEntry? {
    let rows = try await self.rows(
      "read a cache entry",
      """
      SELECT key, version, value, value_updated_at, last_accessed_at
      FROM \(unescaped: self.cache) WHERE key = \(key)
      """
    )
    return try rows.first.map(Self.cacheEntry(from:))
  }

  static func cacheEntry(from row: PostgresRow) throws -> PersistedQueryEntry {
    let (key, version, value, updatedAt, accessedAt) = try row.decode(
      (String, String, Data, Double, Double).self
    )
    return PersistedQueryEntry(
      key: key,
      version: version,
      value: value,
      valueUpdatedAt: Date(timeIntervalSince1970: updatedAt),
      lastAccessedAt: Date(timeIntervalSince1970: accessedAt)
    )
  }

  /// Writes entries (never over a value updated later), records accesses, and trims the cache
  /// to `bounds`, in one transaction.
  @discardableResult
  public func writeCacheEntries(
    _ entries: [PersistedQueryEntry],
    accesses: [String: Date],
    bounds: PersistentQueryCache.Bounds
  ) async throws -> Int {
    try await self.transaction("write cache entries") { connection in
      for entry in entries {
        try await self.upsert(entry, on: connection)
      }
      if !accesses.isEmpty {
        let keys = Array(accesses.keys)
        let dates = keys.map { accesses[$0]!.timeIntervalSince1970 }
        try await connection.query(
          """
          UPDATE \(unescaped: self.cache) AS c
          SET last_accessed_at = GREATEST(c.last_accessed_at, a.at)
          FROM unnest(\(keys)::text[], \(dates)::float8[]) AS a(key, at)
          WHERE c.key = a.key
          """,
          logger: self.logger
        )
      }
      return try await self.trim(to: bounds, on: connection)
    }
  }

  /// Inserts or replaces one entry, unless the stored value was updated later.
  func upsert(_ entry: PersistedQueryEntry, on connection: PostgresConnection) async throws {
    try await connection.query(
      """
      INSERT INTO \(unescaped: self.cache)
        (key, version, value, value_updated_at, last_accessed_at)
      VALUES (\(entry.key), \(entry.version), \(entry.value),
        \(entry.valueUpdatedAt.timeIntervalSince1970), \(entry.lastAccessedAt.timeIntervalSince1970))
      ON CONFLICT (key) DO UPDATE SET
        version = EXCLUDED.version, value = EXCLUDED.value,
        value_updated_at = EXCLUDED.value_updated_at,
        last_accessed_at = GREATEST(\(unescaped: self.cache).last_accessed_at,
          EXCLUDED.last_accessed_at)
      WHERE \(unescaped: self.cache).value_updated_at <= EXCLUDED.value_updated_at
        OR \(unescaped: self.cache).version <> EXCLUDED.version
      """,
      logger: self.logger
    )
  }

  private func trim(
    to bounds: PersistentQueryCache.Bounds,
    on connection: PostgresConnection
  ) async throws -> Int {
    var removed = 0
    if let maxCount = bounds.maxEntryCount {
      let rows = try await Self.collect(
        connection.query(
          """
          DELETE FROM \(unescaped: self.cache) WHERE key IN (
            SELECT key FROM \(unescaped: self.cache)
            ORDER BY last_accessed_at DESC, key DESC OFFSET \(maxCount)
          ) RETURNING 1
          """,
          logger: self.logger
        )
      )
      removed += rows.count
    }
    if let maxBytes = bounds.maxByteCount {
      // NB: Keeps the most recently used entries whose running total of sizes fits.
      let rows = try await Self.collect(
        connection.query(
          """
          DELETE FROM \(unescaped: self.cache) WHERE key IN (
            SELECT key FROM (
              SELECT key, SUM(octet_length(value)) OVER (
                ORDER BY last_accessed_at DESC, key DESC ROWS UNBOUNDED PRECEDING
              ) AS total FROM \(unescaped: self.cache)
            ) AS sized WHERE total > \(maxBytes)
          ) RETURNING 1
          """,
          logger: self.logger
        )
      )
      removed += rows.count
    }
    return removed
  }

  /// Removes the entries with the given keys.
  public func removeCacheEntries(forKeys keys: [String]) async throws {
    guard !keys.isEmpty else { return }
    _ = try await self.rows(
      "remove cache entries",
      "DELETE FROM \(unescaped: self.cache) WHERE key = ANY(\(keys)::text[])"
    )
  }

  /// Removes the entries of other versions and those updated before `date`.
  public func removeCacheEntries(notMatching version: String, updatedBefore date: Date?)
    async throws -> Int
  {
    let oldest = date?.timeIntervalSince1970 ?? -Double.greatestFiniteMagnitude
    return try await self.rows(
      "remove old cache entries",
      """
      DELETE FROM \(unescaped: self.cache)
      WHERE version <> \(version) OR value_updated_at < \(oldest) RETURNING 1
      """
    ).count
  }

  /// The number of entries, their size and the oldest update.
  public func cacheStatistics() async throws -> PersistentQueryCache.Statistics {
    let rows = try await self.rows(
      "read the cache's statistics",
      """
      SELECT COUNT(*)::bigint, COALESCE(SUM(octet_length(value)), 0)::bigint,
        MIN(value_updated_at) FROM \(unescaped: self.cache)
      """
    )
    let (count, bytes, oldest) = try rows[0].decode((Int64, Int64, Double?).self)
    return PersistentQueryCache.Statistics(
      entryCount: Int(count),
      byteCount: Int(bytes),
      oldestValueUpdatedAt: oldest.map(Date.init(timeIntervalSince1970:))
    )
  }

  // MARK: Outbox entries

  static let entryColumns = """
    id, kind, lane, idempotency_key, arguments, status, attempts, last_error, enqueued_at, \
    updated_at, generation
    """

  static func entry(from row: PostgresRow) throws -> (MutationOutbox.Entry, generation: Int64) {
    let (
      id, kind, lane, key, arguments, status, attempts, lastError, enqueuedAt, updatedAt,
      generation
    ) = try row.decode(
      (Int64, String, String, String, Data, String, Int32, String?, Double, Double, Int64).self
    )
    let entry = MutationOutbox.Entry(
      id: id,
      kind: kind,
      lane: lane,
      idempotencyKey: key,
      arguments: arguments,
      status: MutationOutbox.Entry.Status(rawValue: status) ?? .queued,
      attempts: Int(attempts),
      lastError: lastError,
      enqueuedAt: Date(timeIntervalSince1970: enqueuedAt),
      updatedAt: Date(timeIntervalSince1970: updatedAt)
    )
    return (entry, generation)
  }

  /// The payload that wakes the workers of `lane`; an empty lane name (for a name too long for
  /// a notification) wakes every lane.
  static func wakePayload(lane: String) -> String {
    // NB: A notification's payload is at most 8,000 bytes.
    lane.utf8.count <= 7_000 ? "o:\(lane)" : "o:"
  }

  /// Adds a queued entry, or returns the entry that has `idempotencyKey`.
  public func enqueueOutboxEntry(
    kind: String,
    lane: String,
    idempotencyKey: String,
    arguments: Data,
    at date: Date
  ) async throws -> MutationOutbox.Entry {
    try await self.transaction("enqueue an outbox entry") { connection in
      try await self.enqueue(
        kind: kind,
        lane: lane,
        idempotencyKey: idempotencyKey,
        arguments: arguments,
        at: date,
        on: connection
      )
    }
  }

  /// Adds a queued entry on `connection`, in its transaction, and wakes the lane's workers at
  /// commit.
  func enqueue(
    kind: String,
    lane: String,
    idempotencyKey: String,
    arguments: Data,
    at date: Date,
    on connection: PostgresConnection
  ) async throws -> MutationOutbox.Entry {
    let time = date.timeIntervalSince1970
    let inserted = try await Self.collect(
      connection.query(
        """
        INSERT INTO \(unescaped: self.outbox)
          (kind, lane, idempotency_key, arguments, status, attempts, enqueued_at, updated_at)
        VALUES (\(kind), \(lane), \(idempotencyKey), \(arguments), 'queued', 0, \(time), \(time))
        ON CONFLICT (idempotency_key) DO NOTHING
        RETURNING \(unescaped: Self.entryColumns)
        """,
        logger: self.logger
      )
    )
    if let row = inserted.first {
      try await self.notify(Self.wakePayload(lane: lane), on: connection)
      return try Self.entry(from: row).0
    }
    let existing = try await Self.collect(
      connection.query(
        """
        SELECT \(unescaped: Self.entryColumns) FROM \(unescaped: self.outbox)
        WHERE idempotency_key = \(idempotencyKey)
        """,
        logger: self.logger
      )
    )
    guard let row = existing.first else {
      // NB: The conflicting row was removed (delivered) between the two statements.
      throw PostgresStorageError(
        action: "enqueue an outbox entry",
        message: "the entry with key \(idempotencyKey) was delivered while it was enqueued again"
      )
    }
    return try Self.entry(from: row).0
  }

  /// Every outbox entry, in id order.
  public func outboxEntries() async throws -> [MutationOutbox.Entry] {
    try await self.rows(
      "read the outbox",
      "SELECT \(unescaped: Self.entryColumns) FROM \(unescaped: self.outbox) ORDER BY id"
    ).map { try Self.entry(from: $0).0 }
  }

  /// The entries of `lane` that are not failed, in id order: what a worker woken for the lane
  /// reads.
  public func outboxEntries(inLane lane: String) async throws -> [MutationOutbox.Entry] {
    try await self.rows(
      "read an outbox lane",
      """
      SELECT \(unescaped: Self.entryColumns) FROM \(unescaped: self.outbox)
      WHERE lane = \(lane) AND status <> 'failed' ORDER BY id
      """
    ).map { try Self.entry(from: $0).0 }
  }

  /// Queues a failed entry again at the end of its lane, with a new id.
  public func requeueFailedOutboxEntry(id: Int64, at date: Date) async throws
    -> MutationOutbox.Entry?
  {
    try await self.transaction("requeue an outbox entry") { connection in
      let rows = try await Self.collect(
        connection.query(
          """
          WITH failed AS (
            DELETE FROM \(unescaped: self.outbox) WHERE id = \(id) AND status = 'failed'
            RETURNING *
          )
          INSERT INTO \(unescaped: self.outbox) (kind, lane, idempotency_key, arguments, status,
            attempts, last_error, enqueued_at, updated_at, generation)
          SELECT kind, lane, idempotency_key, arguments, 'queued', 0, last_error, enqueued_at,
            \(date.timeIntervalSince1970), generation FROM failed
          RETURNING \(unescaped: Self.entryColumns)
          """,
          logger: self.logger
        )
      )
      guard let row = rows.first else { return nil }
      let entry = try Self.entry(from: row).0
      try await self.notify(Self.wakePayload(lane: entry.lane), on: connection)
      return entry
    }
  }

  /// Removes the failed entry with `id`.
  public func removeFailedOutboxEntry(id: Int64) async throws -> Bool {
    try await !self.rows(
      "remove an outbox entry",
      """
      DELETE FROM \(unescaped: self.outbox) WHERE id = \(id) AND status = 'failed' RETURNING 1
      """
    ).isEmpty
  }

  // MARK: Claims

  /// How long a worker waits before it asks again for a lane whose head another worker is
  /// claiming at this moment.
  static let contendedClaimDelay: TimeInterval = 0.05

  /// Claims the next entry of `lane` for `worker`.
  public func claimNextOutboxEntry(
    inLane lane: String,
    worker: String,
    at now: Date,
    leaseUntil: Date
  ) async throws -> MutationOutbox.ClaimResult {
    try await self.transaction("claim an outbox entry") { connection in
      // NB: The head is locked, or skipped when another worker's transaction holds it; never
      // is a later entry of the lane taken past it.
      let heads = try await Self.collect(
        connection.query(
          """
          SELECT o.id, o.lease_owner, o.lease_expires_at FROM \(unescaped: self.outbox) AS o
          WHERE o.id = (
            SELECT id FROM \(unescaped: self.outbox)
            WHERE lane = \(lane) AND status <> 'failed' ORDER BY id LIMIT 1
          )
          FOR UPDATE SKIP LOCKED
          """,
          logger: self.logger
        )
      )
      guard let head = heads.first else {
        let pending = try await Self.collect(
          connection.query(
            """
            SELECT 1 FROM \(unescaped: self.outbox)
            WHERE lane = \(lane) AND status <> 'failed' LIMIT 1
            """,
            logger: self.logger
          )
        )
        return pending.isEmpty
          ? .empty : .busy(until: now.addingTimeInterval(Self.contendedClaimDelay))
      }
      let (id, owner, expiry) = try head.decode((Int64, String?, Double?).self)
      if let owner, let expiry, owner != worker, expiry > now.timeIntervalSince1970 {
        return .busy(until: Date(timeIntervalSince1970: expiry))
      }
      let claimed = try await Self.collect(
        connection.query(
          """
          UPDATE \(unescaped: self.outbox) SET status = 'inFlight', attempts = attempts + 1,
            generation = generation + 1, lease_owner = \(worker),
            lease_expires_at = \(leaseUntil.timeIntervalSince1970),
            updated_at = \(now.timeIntervalSince1970)
          WHERE id = \(id)
          RETURNING \(unescaped: Self.entryColumns)
          """,
          logger: self.logger
        )
      )
      let (entry, generation) = try Self.entry(from: claimed[0])
      return .claimed(
        MutationOutbox.Claim(
          entry: entry,
          worker: worker,
          generation: generation,
          leaseExpiresAt: leaseUntil
        )
      )
    }
  }

  /// Extends a claim's lease, when its generation is still the entry's.
  public func renewOutboxClaim(_ claim: MutationOutbox.Claim, until date: Date) async throws
    -> MutationOutbox.Claim
  {
    try await self.fenced(claim, "renew an outbox claim") { connection in
      try await connection.query(
        """
        UPDATE \(unescaped: self.outbox) SET lease_expires_at = \(date.timeIntervalSince1970)
        WHERE id = \(claim.entry.id) AND generation = \(claim.generation) RETURNING 1
        """,
        logger: self.logger
      )
    }
    var renewed = claim
    renewed.leaseExpiresAt = date
    return renewed
  }

  /// Gives a claimed entry back to its lane, and wakes the lane's workers.
  public func releaseOutboxClaim(
    _ claim: MutationOutbox.Claim,
    lastError: String?,
    at date: Date
  ) async throws {
    try await self.fenced(claim, "give an outbox claim back") { connection in
      let rows = try await connection.query(
        """
        UPDATE \(unescaped: self.outbox) SET status = 'queued',
          last_error = COALESCE(\(lastError), last_error), updated_at = \(date.timeIntervalSince1970),
          lease_owner = NULL, lease_expires_at = NULL
        WHERE id = \(claim.entry.id) AND generation = \(claim.generation) RETURNING 1
        """,
        logger: self.logger
      )
      try await self.notify(Self.wakePayload(lane: claim.entry.lane), on: connection)
      return rows
    }
  }

  /// Removes a delivered entry.
  public func completeOutboxClaim(_ claim: MutationOutbox.Claim) async throws {
    try await self.fenced(claim, "complete an outbox claim") { connection in
      try await connection.query(
        """
        DELETE FROM \(unescaped: self.outbox)
        WHERE id = \(claim.entry.id) AND generation = \(claim.generation) RETURNING 1
        """,
        logger: self.logger
      )
    }
  }

  /// Ends a claimed entry as failed for good.
  public func failOutboxClaim(
    _ claim: MutationOutbox.Claim,
    lastError: String,
    at date: Date
  ) async throws {
    try await self.fenced(claim, "fail an outbox claim") { connection in
      try await connection.query(
        """
        UPDATE \(unescaped: self.outbox) SET status = 'failed', last_error = \(lastError),
          updated_at = \(date.timeIntervalSince1970), lease_owner = NULL, lease_expires_at = NULL
        WHERE id = \(claim.entry.id) AND generation = \(claim.generation) RETURNING 1
        """,
        logger: self.logger
      )
    }
  }

  /// Runs `update`, which returns a row when the claim's generation is the entry's; throws
  /// ``MutationOutbox/StaleClaimError`` (and changes nothing) when it returns none.
  private func fenced(
    _ claim: MutationOutbox.Claim,
    _ action: String,
    _ update: @escaping @Sendable (PostgresConnection) async throws -> PostgresRowSequence
  ) async throws {
    try await self.transaction(action) { connection in
      guard try await Self.collect(update(connection)).isEmpty else { return }
      let current = try await Self.collect(
        connection.query(
          "SELECT generation FROM \(unescaped: self.outbox) WHERE id = \(claim.entry.id)",
          logger: self.logger
        )
      )
      throw MutationOutbox.StaleClaimError(
        claim: claim,
        currentGeneration: try current.first?.decode(Int64.self)
      )
    }
  }

  // MARK: Owning the outbox

  /// Accepts every owner: the workers of a fleet share the outbox, and the claims of entries
  /// keep them apart.
  public func claimOutbox(owner: String) async throws {}

  /// Does nothing: no owner holds the whole outbox.
  public func releaseOutbox() async {}
}

/// A call of ``PostgresPersistence`` (or of ``PostgresFleet``) that the server refused or
/// could not answer.
public struct PostgresStorageError: Error, Sendable, CustomStringConvertible {
  /// What the storage was doing.
  public let action: String

  /// The server's or the connection's message.
  public let message: String

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - action: What the storage was doing.
  ///   - message: What went wrong.
  public init(action: String, message: String) {
    self.action = action
    self.message = message
  }

  init(action: String, underlying: any Error) {
    self.init(action: action, message: Self.message(of: underlying))
  }

  /// The server's message and code, or the connection's error.
  private static func message(of error: any Error) -> String {
    if let transaction = error as? PostgresTransactionError,
      let inner = transaction.closureError ?? transaction.commitError ?? transaction.beginError
        ?? transaction.rollbackError
    {
      return Self.message(of: inner)
    }
    if let error = error as? PSQLError {
      if let message = error.serverInfo?[.message] {
        let code = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
        return message + code
      }
      // NB: PSQLError's description hides the details; its code names the failure.
      return "\(error.code)" + (error.underlying.map { ": \($0)" } ?? "")
    }
    return String(describing: error)
  }

  /// A description of the error.
  public var description: String {
    "PostgreSQL could not \(self.action): \(self.message)"
  }
}
