import Foundation
import OperationPersistence
import OperationPostgres
import OperationTestSupport
import PostgresNIO
import Testing

@Suite(
  .enabled(if: TestPostgres.isEnabled, TestPostgres.skipMessage),
  .timeLimit(TestPostgres.timeLimit)
)
struct PostgresPersistenceTests {
  private static func entry(_ key: String, _ value: String, updatedAt: TimeInterval)
    -> PersistedQueryEntry
  {
    PersistedQueryEntry(
      key: key,
      version: "v1",
      value: Data(value.utf8),
      valueUpdatedAt: Date(timeIntervalSince1970: updatedAt),
      lastAccessedAt: Date(timeIntervalSince1970: updatedAt)
    )
  }

  @Test func `A Cache Entry Written Is Read Back With Its Dates`() async throws {
    try await TestPostgres.withClient { client, namespace in
      let storage = try await PostgresPersistence(
        client: client,
        namespace: namespace,
        timeout: TestPostgres.callTimeout
      )
      let written = Self.entry("a", "1", updatedAt: 1_000.5)
      try await storage.writeCacheEntries([written], accesses: [:], bounds: .init())
      #expect(try await storage.cacheEntry(forKey: "a") == written)
      #expect(try await storage.cacheEntry(forKey: "b") == nil)
      let statistics = try await storage.cacheStatistics()
      #expect(statistics.entryCount == 1)
      #expect(statistics.byteCount == 1)
      #expect(statistics.oldestValueUpdatedAt == Date(timeIntervalSince1970: 1_000.5))
    }
  }

  @Test func `Two Instances Creating The Schema At Once Both Succeed`() async throws {
    try await TestPostgres.withClient { client, namespace in
      async let first = PostgresPersistence(
        client: client,
        namespace: namespace,
        timeout: TestPostgres.callTimeout
      )
      async let second = PostgresPersistence(
        client: client,
        namespace: namespace,
        timeout: TestPostgres.callTimeout
      )
      _ = try await (first, second)
    }
  }

  @Test func `A Write Never Replaces A Value Another Instance Updated Later`() async throws {
    try await TestPostgres.withClient { client, namespace in
      let storage = try await PostgresPersistence(
        client: client,
        namespace: namespace,
        timeout: TestPostgres.callTimeout
      )
      try await storage.writeCacheEntries(
        [Self.entry("a", "newer", updatedAt: 2_000)],
        accesses: [:],
        bounds: .init()
      )
      try await storage.writeCacheEntries(
        [Self.entry("a", "older", updatedAt: 1_000)],
        accesses: [:],
        bounds: .init()
      )
      #expect(try await storage.cacheEntry(forKey: "a")?.value == Data("newer".utf8))
      try await storage.writeCacheEntries(
        [Self.entry("a", "newest", updatedAt: 3_000)],
        accesses: [:],
        bounds: .init()
      )
      #expect(try await storage.cacheEntry(forKey: "a")?.value == Data("newest".utf8))
    }
  }

  @Test func `Writes Keep The Most Recently Used Entries Within The Bounds`() async throws {
    try await TestPostgres.withClient { client, namespace in
      let storage = try await PostgresPersistence(
        client: client,
        namespace: namespace,
        timeout: TestPostgres.callTimeout
      )
      let entries = (0..<5).map { Self.entry("k\($0)", "xx", updatedAt: Double(1_000 + $0)) }
      let removed = try await storage.writeCacheEntries(
        entries,
        accesses: [:],
        bounds: .init(maxEntryCount: 3)
      )
      #expect(removed == 2)
      #expect(try await storage.cacheEntry(forKey: "k0") == nil)
      #expect(try await storage.cacheEntry(forKey: "k4") != nil)
      // NB: An access moves k2 up; the byte bound (2 bytes each) keeps two entries.
      try await storage.writeCacheEntries(
        [],
        accesses: ["k2": Date(timeIntervalSince1970: 5_000)],
        bounds: .init(maxEntryCount: nil, maxByteCount: 4)
      )
      #expect(try await storage.cacheEntry(forKey: "k2") != nil)
      #expect(try await storage.cacheEntry(forKey: "k4") != nil)
      #expect(try await storage.cacheEntry(forKey: "k3") == nil)
    }
  }

  @Test func `Entries Of Another Version Or Too Old Are Removed`() async throws {
    try await TestPostgres.withClient { client, namespace in
      let storage = try await PostgresPersistence(
        client: client,
        namespace: namespace,
        timeout: TestPostgres.callTimeout
      )
      var other = Self.entry("other", "x", updatedAt: 5_000)
      other.version = "v0"
      try await storage.writeCacheEntries(
        [
          Self.entry("old", "x", updatedAt: 1_000), Self.entry("new", "x", updatedAt: 5_000), other,
        ],
        accesses: [:],
        bounds: .init()
      )
      let removed = try await storage.removeCacheEntries(
        notMatching: "v1",
        updatedBefore: Date(timeIntervalSince1970: 2_000)
      )
      #expect(removed == 2)
      #expect(try await storage.cacheEntry(forKey: "new") != nil)
      try await storage.removeCacheEntries(forKeys: ["new"])
      #expect(try await storage.cacheStatistics().entryCount == 0)
    }
  }

  @Test func `A Key Enqueued Twice Gives Back The First Entry`() async throws {
    try await TestPostgres.withClient { client, namespace in
      let storage = try await PostgresPersistence(
        client: client,
        namespace: namespace,
        timeout: TestPostgres.callTimeout
      )
      let date = Date(timeIntervalSince1970: 1_000)
      let first = try await storage.enqueueOutboxEntry(
        kind: "k",
        lane: "l",
        idempotencyKey: "key",
        arguments: Data("1".utf8),
        at: date
      )
      let second = try await storage.enqueueOutboxEntry(
        kind: "k",
        lane: "l",
        idempotencyKey: "key",
        arguments: Data("2".utf8),
        at: date
      )
      #expect(first == second)
      #expect(first.status == .queued)
      #expect(try await storage.outboxEntries() == [first])
    }
  }

  @Test func `Workers Claim A Lane One Entry At A Time, In Order`() async throws {
    try await TestPostgres.withClient { client, namespace in
      let storage = try await PostgresPersistence(
        client: client,
        namespace: namespace,
        timeout: TestPostgres.callTimeout
      )
      let now = Date(timeIntervalSince1970: 1_000)
      let lease = now.addingTimeInterval(30)
      for index in 0..<3 {
        _ = try await storage.enqueueOutboxEntry(
          kind: "k",
          lane: "l",
          idempotencyKey: "key\(index)",
          arguments: Data(),
          at: now
        )
      }
      guard
        case .claimed(let a) = try await storage.claimNextOutboxEntry(
          inLane: "l",
          worker: "a",
          at: now,
          leaseUntil: lease
        )
      else { Issue.record("A got no claim"); return }
      #expect(a.entry.idempotencyKey == "key0")
      #expect(a.generation == 1)
      #expect(
        try await storage.claimNextOutboxEntry(inLane: "l", worker: "b", at: now, leaseUntil: lease)
          == .busy(until: lease)
      )
      try await storage.completeOutboxClaim(a)
      guard
        case .claimed(let b) = try await storage.claimNextOutboxEntry(
          inLane: "l",
          worker: "b",
          at: now,
          leaseUntil: lease
        )
      else { Issue.record("B got no claim"); return }
      #expect(b.entry.idempotencyKey == "key1")
      #expect(
        try await storage.claimNextOutboxEntry(
          inLane: "other",
          worker: "b",
          at: now,
          leaseUntil: lease
        ) == .empty
      )
    }
  }

  @Test func `A Lease That Expired Is Taken Over, And The Late Worker Is Fenced Off`() async throws
  {
    try await TestPostgres.withClient { client, namespace in
      let storage = try await PostgresPersistence(
        client: client,
        namespace: namespace,
        timeout: TestPostgres.callTimeout
      )
      let now = Date(timeIntervalSince1970: 1_000)
      _ = try await storage.enqueueOutboxEntry(
        kind: "k",
        lane: "l",
        idempotencyKey: "key",
        arguments: Data(),
        at: now
      )
      guard
        case .claimed(let stalled) = try await storage.claimNextOutboxEntry(
          inLane: "l",
          worker: "a",
          at: now,
          leaseUntil: now.addingTimeInterval(30)
        )
      else { Issue.record("A got no claim"); return }
      let later = now.addingTimeInterval(31)
      guard
        case .claimed(let taken) = try await storage.claimNextOutboxEntry(
          inLane: "l",
          worker: "b",
          at: later,
          leaseUntil: later.addingTimeInterval(30)
        )
      else { Issue.record("B got no claim"); return }
      #expect(taken.generation == 2)
      #expect(taken.entry.attempts == 2)
      let error = await #expect(throws: MutationOutbox.StaleClaimError.self) {
        try await storage.completeOutboxClaim(stalled)
      }
      #expect(error?.currentGeneration == 2)
      await #expect(throws: MutationOutbox.StaleClaimError.self) {
        try await storage.renewOutboxClaim(stalled, until: later.addingTimeInterval(60))
      }
      await #expect(throws: MutationOutbox.StaleClaimError.self) {
        try await storage.releaseOutboxClaim(stalled, lastError: "late", at: later)
      }
      #expect(try await storage.outboxEntries().first?.status == .inFlight)
      try await storage.failOutboxClaim(taken, lastError: "gone", at: later)
      let failed = try #require(try await storage.outboxEntries().first)
      #expect(failed.status == .failed)
      let requeued = try #require(
        try await storage.requeueFailedOutboxEntry(id: failed.id, at: later)
      )
      #expect(requeued.id > failed.id)
      #expect(requeued.lastError == "gone")
      #expect(try await storage.removeFailedOutboxEntry(id: requeued.id) == false)
    }
  }

  @Test func `An Entry Written In A Rolled-Back Transaction Does Not Exist`() async throws {
    try await TestPostgres.withClient { client, namespace in
      let storage = try await PostgresPersistence(
        client: client,
        namespace: namespace,
        timeout: TestPostgres.callTimeout
      )
      struct Rollback: Error {}
      await #expect(throws: (any Error).self) {
        try await client.withTransaction(logger: .init(label: "test")) { connection in
          try await storage.enqueueOutboxEntry(
            kind: "k",
            arguments: "dropped",
            lane: "l",
            idempotencyKey: "rolled-back",
            on: connection
          )
          throw Rollback()
        }
      }
      _ = try await client.withTransaction(logger: .init(label: "test")) { connection in
        try await storage.enqueueOutboxEntry(
          kind: "k",
          arguments: "kept",
          lane: "l",
          idempotencyKey: "committed",
          on: connection
        )
      }
      let entries = try await storage.outboxEntries()
      #expect(entries.map(\.idempotencyKey) == ["committed"])
      #expect(entries.first?.arguments == Data("\"kept\"".utf8))
    }
  }

  @Test func `A Cache On PostgreSQL Gives Another Instance The Saved Value With Its Date`()
    async throws
  {
    try await TestPostgres.withClient { client, namespace in
      let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 10_000))
      let a = try await PersistentQueryCache(
        storage: try await PostgresPersistence(
          client: client,
          namespace: namespace,
          timeout: TestPostgres.callTimeout
        ),
        clock: clock,
        writeDelay: .zero
      )
      a.save("value of a", forKey: "shared", updatedAt: Date(timeIntervalSince1970: 9_000))
      try await a.flush()
      let b = try await PersistentQueryCache(
        storage: try await PostgresPersistence(
          client: client,
          namespace: namespace,
          timeout: TestPostgres.callTimeout
        ),
        clock: clock
      )
      let loaded = try #require(await b.load(String.self, forKey: "shared"))
      #expect(loaded.value == "value of a")
      #expect(loaded.updatedAt == Date(timeIntervalSince1970: 9_000))
    }
  }

  @Test func `A Server That Is Down Fails With An Error That Says What Was Tried`() async throws {
    // NB: Nothing listens on port 1 of the loopback: the connection is refused at once.
    var configuration = PostgresClient.Configuration(
      host: "127.0.0.1",
      port: 1,
      username: "operation",
      password: nil,
      database: nil,
      tls: .disable
    )
    configuration.options.connectTimeout = .seconds(2)
    let client = PostgresClient(configuration: configuration)
    await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { await client.run() }
      let delayer = ManualDelayer()
      let opening = Task {
        try await PostgresPersistence(
          client: client,
          namespace: TestPostgres.makeNamespace(),
          timeout: .seconds(5),
          delayer: delayer
        )
      }
      // NB: The pool retries the refused connection for as long as it is asked; the storage's
      // deadline ends the wait.
      await delayer.waitForDelays(count: 1)
      #expect(delayer.delays == [.seconds(5)])
      delayer.resumeAll()
      let error = await #expect(throws: PostgresStorageError.self) { try await opening.value }
      #expect(error?.description.hasPrefix("PostgreSQL could not create the schema:") == true)
      group.cancelAll()
    }
  }
}
