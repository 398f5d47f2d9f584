import Foundation
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

  @Test func `Cache Entries Round Trip Through The File`() throws {
    let database = self.database
    let written = self.entry("a", value: "hello", updated: 10, accessed: 20)
    try database.open().writeCacheEntries([written], accesses: [:], bounds: .init())
    // NB: A second connection reads what the first wrote.
    #expect(try database.open().cacheEntry(forKey: "a") == written)
    #expect(try database.open().cacheEntry(forKey: "b") == nil)
  }

  @Test func `Writing A Key Again Replaces Its Entry`() throws {
    let storage = try self.database.open()
    try storage.writeCacheEntries([self.entry("a", value: "1")], accesses: [:], bounds: .init())
    try storage.writeCacheEntries([self.entry("a", value: "2")], accesses: [:], bounds: .init())
    #expect(try storage.cacheEntry(forKey: "a")?.value == Data("2".utf8))
    #expect(try storage.cacheStatistics().entryCount == 1)
  }

  @Test func `The Least Recently Used Entries Beyond The Count Bound Are Removed`() throws {
    let storage = try self.database.open()
    let entries = (0..<5).map { self.entry("k\($0)", accessed: TimeInterval($0)) }
    try storage.writeCacheEntries(entries, accesses: [:], bounds: .init(maxEntryCount: nil))
    // NB: Reading k0 makes it the most recently used.
    let removed = try storage.writeCacheEntries(
      [],
      accesses: ["k0": Date(timeIntervalSince1970: 100)],
      bounds: .init(maxEntryCount: 3)
    )
    #expect(removed == 2)
    #expect(try storage.cacheEntry(forKey: "k0") != nil)
    #expect(try storage.cacheEntry(forKey: "k1") == nil)
    #expect(try storage.cacheEntry(forKey: "k2") == nil)
    #expect(try storage.cacheEntry(forKey: "k4") != nil)
  }

  @Test func `The Byte Bound Keeps The Most Recently Used Entries That Fit`() throws {
    let storage = try self.database.open()
    let entries = (0..<4).map {
      self.entry("k\($0)", value: String(repeating: "x", count: 10), accessed: TimeInterval($0))
    }
    let removed = try storage.writeCacheEntries(
      entries,
      accesses: [:],
      bounds: .init(maxEntryCount: nil, maxByteCount: 25)
    )
    #expect(removed == 2)
    #expect(try storage.cacheStatistics().byteCount == 20)
    #expect(try storage.cacheEntry(forKey: "k3") != nil)
    #expect(try storage.cacheEntry(forKey: "k1") == nil)
  }

  @Test func `Entries Of Another Version Or Too Old Are Removed`() throws {
    let storage = try self.database.open()
    try storage.writeCacheEntries(
      [
        self.entry("old-version", version: "0", updated: 100),
        self.entry("too-old", updated: 5),
        self.entry("kept", updated: 100),
      ],
      accesses: [:],
      bounds: .init()
    )
    let removed = try storage.removeCacheEntries(
      notMatching: "1",
      updatedBefore: Date(timeIntervalSince1970: 50)
    )
    #expect(removed == 2)
    #expect(try storage.cacheStatistics().entryCount == 1)
    #expect(try storage.cacheStatistics().oldestValueUpdatedAt == Date(timeIntervalSince1970: 100))
  }

  @Test func `Enqueueing An Idempotency Key Twice Returns The First Entry`() throws {
    let storage = try self.database.open()
    let first = try storage.enqueueOutboxEntry(
      kind: "k",
      lane: "l",
      idempotencyKey: "key",
      arguments: Data("1".utf8),
      at: Date()
    )
    let second = try storage.enqueueOutboxEntry(
      kind: "k",
      lane: "l",
      idempotencyKey: "key",
      arguments: Data("2".utf8),
      at: Date()
    )
    #expect(first == second)
    #expect(try storage.outboxEntries().map(\.arguments) == [Data("1".utf8)])
  }

  @Test func `Outbox Entries Keep Their Order And Changes`() throws {
    let storage = try self.database.open()
    for index in 0..<3 {
      try storage.enqueueOutboxEntry(
        kind: "k",
        lane: "l",
        idempotencyKey: "\(index)",
        arguments: Data(),
        at: Date()
      )
    }
    var entries = try storage.outboxEntries()
    #expect(entries.map(\.idempotencyKey) == ["0", "1", "2"])
    entries[1].status = .failed
    entries[1].attempts = 3
    entries[1].lastError = "boom"
    try storage.updateOutboxEntry(entries[1])
    try storage.removeOutboxEntry(id: entries[0].id)
    let reread = try storage.outboxEntries()
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
            try storage.writeCacheEntries(
              [self.entry("w\(writer)-\(index)")],
              accesses: [:],
              bounds: .init(maxEntryCount: nil)
            )
            try storage.enqueueOutboxEntry(
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
    #expect(try storage.cacheStatistics().entryCount == 400)
    let entries = try storage.outboxEntries()
    #expect(entries.count == 400)
    for writer in 0..<8 {
      let keys = entries.filter { $0.lane == "w\(writer)" }.map(\.idempotencyKey)
      #expect(keys == (0..<50).map { "w\(writer)-\($0)" })
    }
  }

  // MARK: Claiming the outbox across processes

  @Test func `The Outbox Claim Holds Across Processes Until Its Owner Dies`() throws {
    let probe = try ProbeProcess(["claim", self.database.path])
    #expect(probe.readLine() == "claimed \(probe.pid)")

    let refused = #expect(throws: MutationOutbox.OutboxClaimedError.self) {
      try self.database.open().claimOutbox(owner: "this test")
    }
    #expect(refused?.owner.hasPrefix("process \(probe.pid) on ") == true)
    // NB: A stopped process still owns its outbox: it may go on delivering when continued.
    probe.send(SIGSTOP)
    #expect(throws: MutationOutbox.OutboxClaimedError.self) {
      try self.database.open().claimOutbox(owner: "this test")
    }
    probe.send(SIGKILL)
    probe.process.waitUntilExit()
    #expect(probe.process.terminationReason == .uncaughtSignal)

    let storage = try self.database.open()
    try storage.claimOutbox(owner: "this test")
    storage.releaseOutbox()
  }

  @Test func `Another Process Is Refused While This One Holds The Outbox`() throws {
    let storage = try self.database.open()
    try storage.claimOutbox(owner: "process \(ProcessInfo.processInfo.processIdentifier) here")
    let probe = try ProbeProcess(["claim", self.database.path])
    #expect(
      probe.readAllLines() == ["refused: process \(ProcessInfo.processInfo.processIdentifier) here"]
    )
    #expect(probe.finish() == 3)

    storage.releaseOutbox()
    let second = try ProbeProcess(["claim", self.database.path])
    #expect(second.readLine() == "claimed \(second.pid)")
    #expect(second.finish() == 0)
  }

  @Test func `One Storage Claims Its Outbox Once`() throws {
    let storage = try self.database.open()
    try storage.claimOutbox(owner: "first")
    #expect(throws: MutationOutbox.OutboxClaimedError.self) {
      try storage.claimOutbox(owner: "second")
    }
    storage.releaseOutbox()
    try storage.claimOutbox(owner: "third")
    storage.releaseOutbox()
  }
}
