import Foundation
import Operation
import OperationPersistence
import OperationServiceLifecycle
import OperationTestSupport
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing

@Suite(.timeLimit(.minutes(1))) struct `QueryCacheService tests` {
  private let directory = TemporaryDirectory()

  @Test func `On Shutdown Every Pending Value Is Written`() async throws {
    let cache = try PersistentQueryCache(
      storage: SQLitePersistence(path: self.directory.file("cache.sqlite")),
      writeDelay: .seconds(3_600)
    )
    let client = OperationClient(
      storeCreator: PersistingStoreCreator(cache: cache, base: .defaultTesting)
    )
    try await testGracefulShutdown { trigger in
      let service = Task { try await QueryCacheService(cache: cache).run() }
      for id in 1...3 {
        try await client.store(for: NumberQuery(id: id).persisted()).fetch()
      }
      #expect(cache.pendingWriteCount == 3)
      trigger.triggerGracefulShutdown()
      try await service.value
    }
    #expect(cache.pendingWriteCount == 0)
    let reopened = try PersistentQueryCache(
      storage: SQLitePersistence(path: self.directory.file("cache.sqlite"))
    )
    #expect(try reopened.statistics().entryCount == 3)
  }

  @Test func `A Cache That Cannot Write Makes The Service Fail`() async throws {
    let storage = try SQLitePersistence(path: self.directory.file("cache.sqlite"))
    let cache = try PersistentQueryCache(storage: storage, writeDelay: .seconds(3_600))
    let client = OperationClient(
      storeCreator: PersistingStoreCreator(cache: cache, base: .defaultTesting)
    )
    try await client.store(for: NumberQuery(id: 1).persisted()).fetch()
    try FileManager.default.removeItem(atPath: self.directory.path)
    try "not a directory".write(toFile: self.directory.path, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: self.directory.path) }

    let service = Task { try await QueryCacheService(cache: cache).run() }
    service.cancel()
    await #expect(throws: (any Error).self) { try await service.value }
  }
}

private struct NumberQuery: QueryRequest, Hashable {
  let id: Int

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.id * 10
  }
}
