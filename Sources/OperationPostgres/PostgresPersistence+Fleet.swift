public import Foundation
import Logging
public import OperationCore
public import OperationPersistence
public import PostgresNIO

// NB: The statements of the fleet's invalidation log and fill leases, beside the storage's
// own, so that every SQL string of the package is in the two PostgresPersistence files.

extension PostgresPersistence {
  // MARK: Transactional outbox

  /// Writes an outbox entry on `connection`, inside the caller's own transaction: the entry
  /// exists, and the workers of the lane are woken, only if that transaction commits.
  ///
  /// ```swift
  /// try await postgres.withTransaction(logger: logger) { connection in
  ///   try await connection.query("INSERT INTO orders ...", logger: logger)
  ///   try await persistence.enqueueOutboxEntry(
  ///     kind: "notify-shipping",
  ///     arguments: ShippingNotice(orderID: id),
  ///     lane: "orders/\(id)",
  ///     idempotencyKey: "order-\(id)-shipping",
  ///     on: connection
  ///   )
  /// }
  /// ```
  ///
  /// A ``MutationOutbox`` on this storage delivers the entry once its fleet
  /// (``PostgresFleet/wakeOnNotifications(_:)``) hears of it.
  ///
  /// - Parameters:
  ///   - kind: The registered kind of mutation.
  ///   - arguments: The arguments, encoded as `MutationOutbox.enqueue` encodes them (JSON).
  ///   - lane: The lane the entry is delivered in, in order.
  ///   - idempotencyKey: The key the server deduplicates by; a new UUID by default. A key that
  ///     is already in the outbox returns its entry.
  ///   - clock: Dates the entry.
  ///   - connection: A connection in an open transaction, to the storage's database.
  /// - Returns: The entry.
  /// - Throws: The encoding's error, or the server's; then the caller's transaction should
  ///   roll back.
  @discardableResult
  public func enqueueOutboxEntry(
    kind: String,
    arguments: some Encodable,
    lane: String,
    idempotencyKey: String = UUID().uuidString,
    clock: some OperationClock = SystemTimeClock(),
    on connection: PostgresConnection
  ) async throws -> MutationOutbox.Entry {
    let data = try JSONEncoder().encode(arguments)
    return try await self.enqueue(
      kind: kind,
      lane: lane,
      idempotencyKey: idempotencyKey,
      arguments: data,
      at: clock.now(),
      on: connection
    )
  }

  // MARK: Invalidation log

  /// The id of the newest invalidation in the log, or 0.
  func newestInvalidationID() async throws -> Int64 {
    let rows = try await self.rows(
      "read the invalidation log",
      "SELECT COALESCE(MAX(id), 0)::bigint FROM \(unescaped: self.namespace.invalidationTable)"
    )
    return try rows[0].decode(Int64.self)
  }

  /// Appends invalidations to the log and notifies the fleet at commit, in one transaction.
  ///
  /// The ids are taken under a lock of the log, so that they commit in the order they are
  /// taken: a reader that has applied id *n* never sees *n* − 1 commit after it.
  func appendInvalidations(
    _ prefixes: [String],
    origin: String,
    at date: Date
  ) async throws {
    guard !prefixes.isEmpty else { return }
    try await self.transaction("write to the invalidation log") { connection in
      try await connection.query(
        "SELECT pg_advisory_xact_lock(hashtext(\(self.namespace.invalidationTable)))",
        logger: self.logger
      )
      let rows = try await Self.collect(
        connection.query(
          """
          INSERT INTO \(unescaped: self.namespace.invalidationTable) (origin, prefix, created_at)
          SELECT \(origin), p, \(date.timeIntervalSince1970) FROM unnest(\(prefixes)::text[]) AS p
          RETURNING id
          """,
          logger: self.logger
        )
      )
      let newest = try rows.map { try $0.decode(Int64.self) }.max() ?? 0
      try await self.notify("i:\(newest)", on: connection)
    }
  }

  /// The invalidations after `id`, in id order.
  func invalidations(after id: Int64, limit: Int) async throws -> [LoggedInvalidation] {
    try await self.rows(
      "read the invalidation log",
      """
      SELECT id, origin, prefix, created_at FROM \(unescaped: self.namespace.invalidationTable)
      WHERE id > \(id) ORDER BY id LIMIT \(limit)
      """
    ).map { row in
      let (id, origin, prefix, createdAt) = try row.decode((Int64, String, String, Double).self)
      return LoggedInvalidation(
        id: id,
        origin: origin,
        prefix: prefix,
        sentAt: Date(timeIntervalSince1970: createdAt)
      )
    }
  }

  /// Removes the invalidations written before `date`.
  func trimInvalidations(before date: Date) async throws -> Int {
    try await self.rows(
      "trim the invalidation log",
      """
      DELETE FROM \(unescaped: self.namespace.invalidationTable)
      WHERE created_at < \(date.timeIntervalSince1970) RETURNING 1
      """
    ).count
  }

  // MARK: Fill leases

  /// Where a fill of one key stands, for one instance.
  enum FillStep: Sendable {
    /// A value fresh enough, or the value of the fill this instance waited for.
    case value(Data, updatedAt: Date)
    /// The fill this instance waited for failed.
    case failed(String)
    /// This instance leads the fill, under `generation`.
    case lead(generation: Int64)
    /// Another instance leads the fill, under `generation`, until `expiresAt` unless renewed.
    case follow(generation: Int64, expiresAt: Date)
  }

  /// One step of a fill, in one transaction, on the lease row locked: the value when it is fresh
  /// or when the fill that the caller follows ended; else the lease, when it is free or
  /// expired; else the lease's holder.
  ///
  /// The row is locked (`FOR UPDATE`) before anything is decided, so that a fill that commits
  /// meanwhile is seen whole: a follower never takes a lease over that was just filled.
  func fillStep(
    key: String,
    version: String,
    holder: String,
    following: Int64?,
    requestedAt: Date,
    freshSince: Date?,
    now: Date,
    leaseUntil: Date
  ) async throws -> FillStep {
    let leases = self.namespace.leaseTable
    return try await self.transaction("take a fill lease") { connection in
      while true {
        let rows = try await Self.collect(
          connection.query(
            """
            SELECT generation, state, error, expires_at FROM \(unescaped: leases)
            WHERE key = \(key) FOR UPDATE
            """,
            logger: self.logger
          )
        )
        guard let row = rows.first else {
          if let freshSince,
            let entry = try await self.entry(key: key, version: version, on: connection),
            entry.valueUpdatedAt >= freshSince
          {
            return .value(entry.value, updatedAt: entry.valueUpdatedAt)
          }
          let inserted = try await Self.collect(
            connection.query(
              """
              INSERT INTO \(unescaped: leases) (key, holder, generation, expires_at, state)
              VALUES (\(key), \(holder), 1, \(leaseUntil.timeIntervalSince1970), 'running')
              ON CONFLICT (key) DO NOTHING RETURNING generation
              """,
              logger: self.logger
            )
          )
          if let row = inserted.first { return .lead(generation: try row.decode(Int64.self)) }
          // NB: Another instance inserted the row since the lock was asked for: lock it now.
          continue
        }
        let (generation, state, error, expiresAt) = try row.decode(
          (Int64, String, String?, Double).self
        )
        // NB: A fill that ended after this caller asked (while it followed, or while its first
        // step waited for the lock) is as fresh as a call of its own would be.
        let isFilledSinceRequest =
          state == "filled"
          && (expiresAt >= requestedAt.timeIntervalSince1970
            || following.map { generation >= $0 } == true)
        if isFilledSinceRequest,
          let entry = try await self.entry(key: key, version: version, on: connection)
        {
          return .value(entry.value, updatedAt: entry.valueUpdatedAt)
        }
        if let following, generation == following, state == "failed" {
          return .failed(error ?? "unknown error")
        }
        if following == nil, let freshSince,
          let entry = try await self.entry(key: key, version: version, on: connection),
          entry.valueUpdatedAt >= freshSince
        {
          return .value(entry.value, updatedAt: entry.valueUpdatedAt)
        }
        if state == "running", expiresAt > now.timeIntervalSince1970 {
          return .follow(generation: generation, expiresAt: Date(timeIntervalSince1970: expiresAt))
        }
        let taken = try await Self.collect(
          connection.query(
            """
            UPDATE \(unescaped: leases) SET holder = \(holder), generation = generation + 1,
              expires_at = \(leaseUntil.timeIntervalSince1970), state = 'running', error = NULL
            WHERE key = \(key) RETURNING generation
            """,
            logger: self.logger
          )
        )
        return .lead(generation: try taken[0].decode(Int64.self))
      }
    }
  }

  private func entry(
    key: String,
    version: String,
    on connection: PostgresConnection
  ) async throws -> PersistedQueryEntry? {
    let rows = try await Self.collect(
      connection.query(
        """
        SELECT key, version, value, value_updated_at, last_accessed_at
        FROM \(unescaped: self.namespace.cacheTable) WHERE key = \(key) AND version = \(version)
        """,
        logger: self.logger
      )
    )
    return try rows.first.map(Self.cacheEntry(from:))
  }

  /// Extends a running lease; `false` when another instance took it over.
  func renewFillLease(key: String, generation: Int64, until date: Date) async throws -> Bool {
    try await !self.rows(
      "renew a fill lease",
      """
      UPDATE \(unescaped: self.namespace.leaseTable) SET expires_at = \(date.timeIntervalSince1970)
      WHERE key = \(key) AND generation = \(generation) AND state = 'running' RETURNING 1
      """
    ).isEmpty
  }

  /// Ends a fill: with `entry` written to the cache (success), with `error` (failure), or with
  /// the lease given up (`entry` and `error` both `nil`: a cancelled leader, whose followers take
  /// over at once); and notifies the followers at commit. Fenced: returns `false`, and changes
  /// nothing, when the lease's generation is no longer `generation`.
  func endFill(
    key: String,
    generation: Int64,
    entry: PersistedQueryEntry?,
    error: String?,
    payload: String,
    at date: Date
  ) async throws -> Bool {
    let leases = self.namespace.leaseTable
    // NB: A filled lease keeps the date of its fill in `expires_at`: a caller that asked before
    // it takes the value rather than a lease.
    let (state, expiry): (String, Double) =
      if entry != nil {
        ("filled", date.timeIntervalSince1970)
      } else if error != nil {
        ("failed", 0)
      } else {
        ("running", 0)
      }
    return try await self.transaction("end a fill") { connection in
      let rows = try await Self.collect(
        connection.query(
          """
          UPDATE \(unescaped: leases) SET state = \(state), error = \(error),
            expires_at = \(expiry)
          WHERE key = \(key) AND generation = \(generation) AND state = 'running'
          RETURNING 1
          """,
          logger: self.logger
        )
      )
      guard !rows.isEmpty else { return false }
      if let entry {
        try await self.upsert(entry, on: connection)
      }
      try await self.notify(payload, on: connection)
      return true
    }
  }
}

/// One row of the invalidation log.
struct LoggedInvalidation: Sendable {
  let id: Int64
  let origin: String
  let prefix: String
  let sentAt: Date
}
