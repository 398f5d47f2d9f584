import Foundation
import OperationCore
import OperationPersistence
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `PersistenceSnapshot tests` {
  private let database = TemporaryDatabase()

  @Test func `A Snapshot Counts The Cache And Lists The Outbox Without Arguments`() async throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 100))
    let cache = try await PersistentQueryCache(
      storage: self.database.open(),
      maxAge: nil,
      clock: clock,
      delayer: ManualDelayer()
    )
    cache.save("a", forKey: "a", updatedAt: clock.now())
    try await cache.flush()
    cache.save("b", forKey: "b", updatedAt: clock.now())
    let outbox = try await MutationOutbox(storage: try self.database.open(), clock: clock)
    try await outbox.enqueue(kind: "k", arguments: "secret", lane: "l", idempotencyKey: "key")

    let snapshot = try await OperationPersistenceSnapshot(cache: cache, outbox: outbox)
    #expect(snapshot.cache?.entryCount == 1)
    #expect(snapshot.pendingCacheWrites == 1)
    #expect(snapshot.outbox?.queued == 1)
    #expect(snapshot.outbox?.oldestEnqueuedAt == Date(timeIntervalSince1970: 100))
    #expect(snapshot.outboxEntries?.map(\.idempotencyKey) == ["key"])
    let json = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
    #expect(!json.contains("secret"))
    #expect(!json.contains(Data("\"secret\"".utf8).base64EncodedString()))
  }
}
