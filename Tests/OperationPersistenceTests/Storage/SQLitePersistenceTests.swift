import Foundation
import GRDB
import OperationPersistence
import Testing

@Suite(.timeLimit(.minutes(1))) struct `SQLitePersistence tests` {
  private let database = TemporaryDatabase()

  private func entry(
    _ key: String,
    value: String = "v",
    version: String = "1",
    updated: TimeInterval = 0,
    accessed: TimeInterval = 0
  ) -> PersistedQueryEntry {
    PersistedQueryEntry(
      key: key,
      version: version,
      value: Data(value.utf8),
      valueUpdatedAt: Date(timeIntervalSince1970: updated),
      lastAccessedAt: Date(timeIntervalSince1970: accessed)
    )
  }

  @Test func `Cache Entries Round Trip Through The File`() async throws {
    let database = self.database
    let written = self.entry("a", value: "hello", updated: 10, accessed: 20)
    try await database.open().writeCacheEntries([written], accesses: [:], bounds: .init())
    // NB: A second connection reads what the first wrote.
    #expect(try await database.open().cacheEntry(forKey: "a") == written)
    #expect(try await database.open().cacheEntry(forKey: "b") == nil)
  }

  @Test func `Writing A Key Again Replaces Its Entry`() async throws {
    let storage = try self.database.open()
    try await storage.writeCacheEntries(
      [self.entry("a", value: "1")],
      accesses: [:],
      bounds: .init()
    )
    try await storage.writeCacheEntries(
      [self.entry("a", value: "2")],
      accesses: [:],
      bounds: .init()
    )
    #expect(try await storage.cacheEntry(forKey: "a")?.value == Data("2".utf8))
    #expect(try await storage.cacheStatistics().entryCount == 1)
  }

  @Test func `The Least Recently Used Entries Beyond The Count Bound Are Removed`() async throws {
    let storage = try self.database.open()
    let entries = (0..<5).map { self.entry("k\($0)", accessed: TimeInterval($0)) }
    try await storage.writeCacheEntries(entries, accesses: [:], bounds: .init(maxEntryCount: nil))
    // NB: Reading k0 makes it the most recently used.
    let removed = try await storage.writeCacheEntries(
      [],
      accesses: ["k0": Date(timeIntervalSince1970: 100)],
      bounds: .init(maxEntryCount: 3)
    )
    #expect(removed == 2)
    #expect(try await storage.cacheEntry(forKey: "k0") != nil)
    #expect(try await storage.cacheEntry(forKey: "k1") == nil)
    #expect(try await storage.cacheEntry(forKey: "k2") == nil)
    #expect(try await storage.cacheEntry(forKey: "k4") != nil)
  }

  @Test func `The Byte Bound Keeps The Most Recently Used Entries That Fit`() async throws {
    let storage = try self.database.open()
    let entries = (0..<4).map {
      self.entry("k\($0)", value: String(repeating: "x", count: 10), accessed: TimeInterval($0))
    }
    let removed = try await storage.writeCacheEntries(
      entries,
      accesses: [:],
      bounds: .init(maxEntryCount: nil, maxByteCount: 25)
    )
    #expect(removed == 2)
    #expect(try await storage.cacheStatistics().byteCount == 20)
    #expect(try await storage.cacheEntry(forKey: "k3") != nil)
    #expect(try await storage.cacheEntry(forKey: "k1") == nil)
  }

  @Test func `Entries Of Another Version Or Too Old Are Removed`() async throws {
    let storage = try self.database.open()
    try await storage.writeCacheEntries(
      [
        self.entry("old-version", version: "0", updated: 100),
        self.entry("too-old", updated: 5),
        self.entry("kept", updated: 100),
      ],
      accesses: [:],
      bounds: .init()
    )
    let removed = try await storage.removeCacheEntries(
      notMatching: "1",
      updatedBefore: Date(timeIntervalSince1970: 50)
    )
    #expect(removed == 2)
    #expect(try await storage.cacheStatistics().entryCount == 1)
    #expect(
      try await storage.cacheStatistics().oldestValueUpdatedAt == Date(timeIntervalSince1970: 100)
    )
  }

  @Test func `Enqueueing An Idempotency Key Twice Returns The First Entry`() async throws {
    let storage = try self.database.open()
    let first = try await storage.enqueueOutboxEntry(
      kind: "k",
      lane: "l",
      idempotencyKey: "key",
      arguments: Data("1".utf8),
      at: Date()
    )
    let second = try await storage.enqueueOutboxEntry(
      kind: "k",
      lane: "l",
      idempotencyKey: "key",
      arguments: Data("2".utf8),
      at: Date()
    )
    #expect(first == second)
    #expect(try await storage.outboxEntries().map(\.arguments) == [Data("1".utf8)])
  }

  @Test func `Outbox Entries Keep Their Order And Changes`() async throws {
    let storage = try self.database.open()
    for index in 0..<3 {
      _ = try await storage.enqueueOutboxEntry(
        kind: "k",
        lane: "l",
        idempotencyKey: "\(index)",
        arguments: Data(),
        at: Date()
      )
    }
    let entries = try await storage.outboxEntries()
    #expect(entries.map(\.idempotencyKey) == ["0", "1", "2"])
    // NB: Changes go through claims: the first entry is delivered, the second fails three times,
    // the last for good.
    let now = Date(timeIntervalSince1970: 100)
    let delivered = try await self.claim(storage, lane: "l", at: now)
    try await storage.completeOutboxClaim(delivered)
    for attempt in 1...3 {
      let claim = try await self.claim(storage, lane: "l", at: now)
      #expect(claim.entry.id == entries[1].id)
      if attempt < 3 {
        try await storage.releaseOutboxClaim(claim, lastError: "try \(attempt)", at: now)
      } else {
        try await storage.failOutboxClaim(claim, lastError: "boom", at: now)
      }
    }
    let reread = try await storage.outboxEntries()
    #expect(reread.map(\.idempotencyKey) == ["1", "2"])
    #expect(reread[0].status == .failed)
    #expect(reread[0].attempts == 3)
    #expect(reread[0].lastError == "boom")
  }

  @Test func `Concurrent Writers On Two Connections Lose Nothing`() async throws {
    let database = self.database
    let connections = try [database.open(), database.open()]
    try await withThrowingTaskGroup(of: Void.self) { group in
      for writer in 0..<8 {
        let storage = connections[writer % 2]
        group.addTask {
          for index in 0..<50 {
            try await storage.writeCacheEntries(
              [self.entry("w\(writer)-\(index)")],
              accesses: [:],
              bounds: .init(maxEntryCount: nil)
            )
            _ = try await storage.enqueueOutboxEntry(
              kind: "k",
              lane: "w\(writer)",
              idempotencyKey: "w\(writer)-\(index)",
              arguments: Data(),
              at: Date()
            )
          }
        }
      }
      try await group.waitForAll()
    }
    let storage = try database.open()
    #expect(try await storage.cacheStatistics().entryCount == 400)
    let entries = try await storage.outboxEntries()
    #expect(entries.count == 400)
    for writer in 0..<8 {
      let keys = entries.filter { $0.lane == "w\(writer)" }.map(\.idempotencyKey)
      #expect(keys == (0..<50).map { "w\(writer)-\($0)" })
    }
  }

  // MARK: Claims of entries

  @Test func `A Lane Is Claimed One Entry At A Time, In Id Order, By One Worker At A Time`()
    async throws
  {
    let storage = try self.database.open()
    let entries = try await self.enqueue(3, in: storage, lane: "l")
    try await self.enqueue(1, in: storage, lane: "other", from: 3)
    let now = Date(timeIntervalSince1970: 100)
    let first = try await self.claim(storage, lane: "l", worker: "a", at: now)
    #expect(first.entry.id == entries[0].id)
    #expect(first.entry.status == .inFlight)
    #expect(first.entry.attempts == 1)
    #expect(first.generation == 1)
    // NB: The lane's head is held: no worker gets the next entry while the lease lasts.
    let busy = try await storage.claimNextOutboxEntry(
      inLane: "l",
      worker: "b",
      at: now.addingTimeInterval(10),
      leaseUntil: now.addingTimeInterval(40)
    )
    #expect(busy == .busy(until: now.addingTimeInterval(30)))
    // NB: Other lanes are free.
    #expect(
      try await self.claim(storage, lane: "other", worker: "b", at: now).entry.lane == "other"
    )
    try await storage.completeOutboxClaim(first)
    #expect(
      try await self.claim(storage, lane: "l", worker: "b", at: now).entry.id == entries[1].id
    )
    let none = try await storage.claimNextOutboxEntry(
      inLane: "none",
      worker: "a",
      at: now,
      leaseUntil: now
    )
    #expect(none == .empty)
  }

  @Test func `An Expired Lease Is Taken Over, And The Stale Claim Changes Nothing`() async throws {
    let storage = try self.database.open()
    let entry = try #require(try await self.enqueue(1, in: storage, lane: "l").first)
    let start = Date(timeIntervalSince1970: 100)
    let a = try await self.claim(storage, lane: "l", worker: "a", at: start)
    let b = try await self.claim(storage, lane: "l", worker: "b", at: start.addingTimeInterval(31))
    #expect(b.entry.id == entry.id)
    #expect(b.generation == a.generation + 1)
    #expect(b.entry.attempts == 2)

    let stale = MutationOutbox.StaleClaimError(claim: a, currentGeneration: b.generation)
    await #expect(throws: stale) {
      try await storage.renewOutboxClaim(a, until: start.addingTimeInterval(100))
    }
    await #expect(throws: stale) {
      try await storage.releaseOutboxClaim(a, lastError: "late", at: start)
    }
    await #expect(throws: stale) {
      try await storage.failOutboxClaim(a, lastError: "late", at: start)
    }
    await #expect(throws: stale) { try await storage.completeOutboxClaim(a) }
    let stored = try #require(try await storage.outboxEntries().first)
    #expect(stored == b.entry)

    // NB: The new owner's claim works, and once it removed the entry, the old one finds it gone.
    let renewed = try await storage.renewOutboxClaim(b, until: start.addingTimeInterval(90))
    #expect(renewed.leaseExpiresAt == start.addingTimeInterval(90))
    try await storage.completeOutboxClaim(b)
    await #expect(throws: MutationOutbox.StaleClaimError(claim: a, currentGeneration: nil)) {
      try await storage.completeOutboxClaim(a)
    }
  }

  @Test func `A Worker Takes Back Its Own Claim Before Its Lease Expires`() async throws {
    let storage = try self.database.open()
    try await self.enqueue(1, in: storage, lane: "l")
    let start = Date(timeIntervalSince1970: 100)
    let first = try await self.claim(storage, lane: "l", worker: "a", at: start)
    let again = try await self.claim(
      storage,
      lane: "l",
      worker: "a",
      at: start.addingTimeInterval(1)
    )
    #expect(again.generation == first.generation + 1)
  }

  @Test func `A Released Entry Is Queued With Its Error, And A Failed One Leaves Its Lane`()
    async throws
  {
    let storage = try self.database.open()
    let entries = try await self.enqueue(2, in: storage, lane: "l")
    let now = Date(timeIntervalSince1970: 100)
    let claim = try await self.claim(storage, lane: "l", worker: "a", at: now)
    try await storage.releaseOutboxClaim(claim, lastError: "unavailable", at: now)
    var stored = try await storage.outboxEntries()
    #expect(stored[0].status == .queued)
    #expect(stored[0].lastError == "unavailable")
    #expect(stored[0].attempts == 1)
    // NB: Released, the entry is free for any worker at once.
    let next = try await self.claim(storage, lane: "l", worker: "b", at: now)
    #expect(next.entry.id == entries[0].id)
    try await storage.releaseOutboxClaim(next, lastError: nil, at: now)
    #expect(try await storage.outboxEntries()[0].lastError == "unavailable")
    let last = try await self.claim(storage, lane: "l", worker: "b", at: now)
    try await storage.failOutboxClaim(last, lastError: "rejected", at: now)
    stored = try await storage.outboxEntries()
    #expect(stored[0].status == .failed)
    #expect(
      try await self.claim(storage, lane: "l", worker: "b", at: now).entry.id == entries[1].id
    )
  }

  @Test func `Only A Failed Entry Is Requeued, At The End Of Its Lane, Or Removed`() async throws {
    let storage = try self.database.open()
    let entries = try await self.enqueue(2, in: storage, lane: "l")
    let now = Date(timeIntervalSince1970: 100)
    #expect(try await storage.requeueFailedOutboxEntry(id: entries[0].id, at: now) == nil)
    #expect(try await storage.removeFailedOutboxEntry(id: entries[0].id) == false)
    let claim = try await self.claim(storage, lane: "l", worker: "a", at: now)
    try await storage.failOutboxClaim(claim, lastError: "rejected", at: now)

    let requeued = try #require(
      try await storage.requeueFailedOutboxEntry(id: entries[0].id, at: now)
    )
    #expect(requeued.id > entries[1].id)
    #expect(requeued.idempotencyKey == entries[0].idempotencyKey)
    #expect(requeued.status == .queued)
    #expect(requeued.attempts == 0)
    #expect(requeued.lastError == "rejected")
    #expect(try await storage.outboxEntries().map(\.id) == [entries[1].id, requeued.id])
    // NB: Its generation goes on from the failed entry's.
    let next = try await self.claim(storage, lane: "l", worker: "a", at: now)
    try await storage.completeOutboxClaim(next)
    #expect(try await self.claim(storage, lane: "l", worker: "a", at: now).generation == 2)

    let failed = try await self.claim(storage, lane: "l", worker: "a", at: now)
    try await storage.failOutboxClaim(failed, lastError: "again", at: now)
    #expect(try await storage.removeFailedOutboxEntry(id: requeued.id))
    #expect(try await storage.outboxEntries().isEmpty)
  }

  @Test func `A File Of The First Schema Opens With Its Rows, Which Take Claims`() async throws {
    // NB: The tables as the first version of the package created them, with one entry.
    let old = try DatabaseQueue(path: self.database.path)
    try await old.write { db in
      try db.execute(
        sql: """
          CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
          INSERT INTO grdb_migrations VALUES ('v1');
          CREATE TABLE queryCache (
            key TEXT PRIMARY KEY NOT NULL, version TEXT NOT NULL, value BLOB NOT NULL,
            valueUpdatedAt DOUBLE NOT NULL, lastAccessedAt DOUBLE NOT NULL
          );
          CREATE INDEX queryCacheByAccess ON queryCache(lastAccessedAt, key);
          CREATE TABLE outbox (
            id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, lane TEXT NOT NULL,
            idempotencyKey TEXT NOT NULL UNIQUE, arguments BLOB NOT NULL, status TEXT NOT NULL,
            attempts INTEGER NOT NULL, lastError TEXT, enqueuedAt DOUBLE NOT NULL,
            updatedAt DOUBLE NOT NULL
          );
          INSERT INTO outbox
            (kind, lane, idempotencyKey, arguments, status, attempts, lastError, enqueuedAt,
             updatedAt)
          VALUES ('k', 'l', 'old-key', x'7b7d', 'inFlight', 2, 'timeout', 10, 20);
          """
      )
    }
    try old.close()

    let storage = try self.database.open()
    let entries = try await storage.outboxEntries()
    #expect(entries.map(\.idempotencyKey) == ["old-key"])
    #expect(entries.first?.attempts == 2)
    #expect(entries.first?.lastError == "timeout")
    let claim = try await self.claim(storage, lane: "l", worker: "a", at: Date())
    #expect(claim.entry.idempotencyKey == "old-key")
    #expect(claim.generation == 1)
    #expect(claim.entry.attempts == 3)
  }

  @Test func `Claiming The Outbox Ends The Leases That Ended Outboxes Left`() async throws {
    let storage = try self.database.open()
    try await self.enqueue(1, in: storage, lane: "l")
    let now = Date(timeIntervalSince1970: 100)
    let dead = try await self.claim(storage, lane: "l", worker: "dead", at: now)
    try await storage.claimOutbox(owner: "the next launch")
    let taken = try await self.claim(storage, lane: "l", worker: "next", at: now)
    #expect(taken.generation == dead.generation + 1)
    await storage.releaseOutbox()
  }

  // MARK: Claiming the outbox across processes

  @Test func `The Outbox Claim Holds Across Processes Until Its Owner Dies`() async throws {
    let probe = try ProbeProcess(["claim", self.database.path])
    #expect(probe.readLine() == "claimed \(probe.pid)")

    let refused = await #expect(throws: MutationOutbox.OutboxClaimedError.self) {
      try await self.database.open().claimOutbox(owner: "this test")
    }
    #expect(refused?.owner.hasPrefix("process \(probe.pid) on ") == true)
    // NB: A stopped process still owns its outbox: it may go on delivering when continued.
    probe.send(SIGSTOP)
    await #expect(throws: MutationOutbox.OutboxClaimedError.self) {
      try await self.database.open().claimOutbox(owner: "this test")
    }
    probe.send(SIGKILL)
    probe.process.waitUntilExit()
    #expect(probe.process.terminationReason == .uncaughtSignal)

    let storage = try self.database.open()
    try await storage.claimOutbox(owner: "this test")
    await storage.releaseOutbox()
  }

  @Test func `Another Process Is Refused While This One Holds The Outbox`() async throws {
    let storage = try self.database.open()
    try await storage.claimOutbox(
      owner: "process \(ProcessInfo.processInfo.processIdentifier) here"
    )
    let probe = try ProbeProcess(["claim", self.database.path])
    #expect(
      probe.readAllLines() == ["refused: process \(ProcessInfo.processInfo.processIdentifier) here"]
    )
    #expect(probe.finish() == 3)

    await storage.releaseOutbox()
    let second = try ProbeProcess(["claim", self.database.path])
    #expect(second.readLine() == "claimed \(second.pid)")
    #expect(second.finish() == 0)
  }

  @Test func `One Storage Claims Its Outbox Once`() async throws {
    let storage = try self.database.open()
    try await storage.claimOutbox(owner: "first")
    await #expect(throws: MutationOutbox.OutboxClaimedError.self) {
      try await storage.claimOutbox(owner: "second")
    }
    await storage.releaseOutbox()
    try await storage.claimOutbox(owner: "third")
    await storage.releaseOutbox()
  }

  #if os(Linux)
    @Test func `A Released Outbox Is Free While A Copy Of Its Descriptor Lives`() async throws {
      // NB: A process that another thread spawns holds a copy of every descriptor until it
      // executes its program; a copy kept here stands in for it. The lock belongs to the open
      // file that both copies share, so closing the outbox's own copy alone did not free it.
      let storage = try self.database.open()
      try await storage.claimOutbox(owner: "first")
      let copy = try #require(Self.duplicateDescriptor(of: storage.outboxLockPath))
      defer { close(copy) }
      await storage.releaseOutbox()
      try await storage.claimOutbox(owner: "second")
      await storage.releaseOutbox()
    }

    /// A duplicate of this process's descriptor of the file at `path`, found in `/proc/self/fd`.
    private static func duplicateDescriptor(of path: String) -> Int32? {
      let directory = "/proc/self/fd"
      let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
      for name in names {
        guard let descriptor = Int32(name),
          let target = try? FileManager.default.destinationOfSymbolicLink(
            atPath: "\(directory)/\(name)"
          ),
          target == path
        else { continue }
        return dup(descriptor)
      }
      return nil
    }
  #endif

  // MARK: Helpers

  @discardableResult
  private func enqueue(
    _ count: Int,
    in storage: SQLitePersistence,
    lane: String,
    from start: Int = 0
  ) async throws -> [MutationOutbox.Entry] {
    var entries = [MutationOutbox.Entry]()
    for index in start..<(start + count) {
      entries.append(
        try await storage.enqueueOutboxEntry(
          kind: "k",
          lane: lane,
          idempotencyKey: "\(index)",
          arguments: Data(),
          at: Date(timeIntervalSince1970: 0)
        )
      )
    }
    return entries
  }

  /// Claims the lane's next entry with a lease of 30 seconds; fails the test when it cannot.
  private func claim(
    _ storage: SQLitePersistence,
    lane: String,
    worker: String = "worker",
    at now: Date
  ) async throws -> MutationOutbox.Claim {
    let result = try await storage.claimNextOutboxEntry(
      inLane: lane,
      worker: worker,
      at: now,
      leaseUntil: now.addingTimeInterval(30)
    )
    guard case .claimed(let claim) = result else {
      Issue.record("The claim of lane \(lane) found \(result)")
      throw ClaimRefused()
    }
    return claim
  }
}

private struct ClaimRefused: Error {}
