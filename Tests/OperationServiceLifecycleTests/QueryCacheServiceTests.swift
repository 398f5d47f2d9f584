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
    let cache = try await PersistentQueryCache(
      storage: SQLitePersistence(path: self.directory.file("cache.sqlite")),
      writeDelay: .seconds(3_600)
    )
    let client = OperationClient(
      storeCreator: PersistingStoreCreator(cache: cache, base: .defaultTesting)
    )
    try await testGracefulShutdown { trigger in
      let service = Task { try await QueryCacheService(cache: cache).run() }
      for id in 1...3 {
        try await client.store(for: NumberQuery(id: id)).fetch()
      }
      #expect(cache.pendingWriteCount == 3)
      trigger.triggerGracefulShutdown()
      try await service.value
    }
    #expect(cache.pendingWriteCount == 0)
    let reopened = try await PersistentQueryCache(
      storage: SQLitePersistence(path: self.directory.file("cache.sqlite"))
    )
    #expect(try await reopened.statistics().entryCount == 3)
  }

  @Test func `A Cache That Cannot Write Makes The Service Fail`() async throws {
    let cache = try await PersistentQueryCache(
      storage: FullDiskStorage(),
      writeDelay: .seconds(3_600),
      onProblem: { _ in }
    )
    let client = OperationClient(
      storeCreator: PersistingStoreCreator(cache: cache, base: .defaultTesting)
    )
    try await client.store(for: NumberQuery(id: 1)).fetch()
    #expect(cache.pendingWriteCount == 1)

    let service = Task { try await QueryCacheService(cache: cache).run() }
    service.cancel()
    await #expect(throws: PersistentQueryCache.FlushError.self) { try await service.value }
  }
}

// NB: Not private: the cache refuses private types as keys (their names are not stable).
struct NumberQuery: QueryRequest, Hashable {
  let id: Int

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.id * 10
  }
}
