import Foundation
import Operation
import OperationCore
@_spi(Testing) import OperationPersistence
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `PersistentQueryCache tests` {
  private let database = TemporaryDatabase()
  private let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 1_000_000))

  private func cache(
    version: String = "1",
    maxAge: OperationDuration? = .seconds(3600),
    bounds: PersistentQueryCache.Bounds = .init(),
    problems: Recorder<String> = Recorder()
  ) async throws -> PersistentQueryCache {
    try await PersistentQueryCache(
      storage: self.database.open(),
      version: version,
      maxAge: maxAge,
      bounds: bounds,
      clock: self.clock,
      delayer: ManualDelayer(),
      onProblem: { problems.record($0.description) }
    )
  }

  @Test func `A Saved Value Loads With Its Update Date After A Flush`() async throws {
    let cache = try await self.cache()
    cache.save([1, 2, 3], forKey: "numbers", updatedAt: Date(timeIntervalSince1970: 999_000))
    #expect(cache.pendingWriteCount == 1)
    #expect(await cache.load([Int].self, forKey: "numbers") == nil)

    try await cache.flush()
    #expect(cache.pendingWriteCount == 0)
    let loaded = try #require(try await self.cache().load([Int].self, forKey: "numbers"))
    #expect(loaded.value == [1, 2, 3])
    #expect(loaded.updatedAt == Date(timeIntervalSince1970: 999_000))
  }

  @Test func `Saves Gather Into One Batch And The Latest Value Of A Key Wins`() async throws {
    let cache = try await self.cache()
    for value in 0..<10 {
      cache.save(value, forKey: "k\(value % 3)", updatedAt: self.clock.now())
    }
    #expect(cache.pendingWriteCount == 3)
    try await cache.flush()
    #expect(try await cache.statistics().entryCount == 3)
    #expect(await cache.load(Int.self, forKey: "k0")?.value == 9)
  }

  @Test func `A New Version Discards Older Entries`() async throws {
    let old = try await self.cache(version: "1")
    old.save("a", forKey: "key", updatedAt: self.clock.now())
    try await old.flush()
    let new = try await self.cache(version: "2")
    #expect(await new.load(String.self, forKey: "key") == nil)
    #expect(try await new.statistics().entryCount == 0)
  }

  @Test func `Values Older Than The Max Age Are Not Loaded And Are Removed On Open`() async throws {
    let cache = try await self.cache(maxAge: .seconds(60))
    cache.save("old", forKey: "old", updatedAt: self.clock.now())
    cache.save("new", forKey: "new", updatedAt: self.clock.now().addingTimeInterval(30))
    try await cache.flush()
    self.clock.advance(by: 61)
    #expect(await cache.load(String.self, forKey: "old") == nil)
    #expect(await cache.load(String.self, forKey: "new")?.value == "new")

    let reopened = try await self.cache(maxAge: .seconds(60))
    #expect(try await reopened.statistics().entryCount == 1)
  }

  @Test func `The Least Recently Used Entries Leave First`() async throws {
    let cache = try await self.cache(bounds: .init(maxEntryCount: 2))
    cache.save(1, forKey: "a", updatedAt: self.clock.now())
    self.clock.advance(by: 1)
    cache.save(2, forKey: "b", updatedAt: self.clock.now())
    try await cache.flush()
    self.clock.advance(by: 1)
    _ = await cache.load(Int.self, forKey: "a")
    self.clock.advance(by: 1)
    cache.save(3, forKey: "c", updatedAt: self.clock.now())
    try await cache.flush()
    #expect(await cache.load(Int.self, forKey: "a")?.value == 1)
    #expect(await cache.load(Int.self, forKey: "b") == nil)
    #expect(await cache.load(Int.self, forKey: "c")?.value == 3)
  }

  @Test func `A Corrupt Entry Is Reported And Removed`() async throws {
    let problems = Recorder<String>()
    let cache = try await self.cache(problems: problems)
    try await cache.storage.writeCacheEntries(
      [
        PersistedQueryEntry(
          key: "corrupt",
          version: "keys-3/1",
          value: Data("{not json".utf8),
          valueUpdatedAt: self.clock.now(),
          lastAccessedAt: self.clock.now()
        )
      ],
      accesses: [:],
      bounds: .init()
    )
    #expect(await cache.load([Int].self, forKey: "corrupt") == nil)
    #expect(problems.values.count == 1)
    #expect(problems.values.first?.contains("'corrupt'") == true)
    #expect(try await cache.storage.cacheEntry(forKey: "corrupt") == nil)
  }

  @Test func `Entries Keyed By Descriptions Are Removed When The Cache Opens, Never Read`()
    async throws
  {
    // NB: Before keys were canonical, entries were keyed by the path's description and stored
    // with the cache's version alone.
    let storage = try self.database.open()
    try await storage.writeCacheEntries(
      [
        PersistedQueryEntry(
          key: "[Query(id: 1)]",
          version: "1",
          value: Data("{\"id\":1}".utf8),
          valueUpdatedAt: self.clock.now(),
          lastAccessedAt: self.clock.now()
        )
      ],
      accesses: [:],
      bounds: .init()
    )
    let cache = try await self.cache()
    #expect(try await cache.statistics().entryCount == 0)
    #expect(await cache.load([String: Int].self, forKey: "[Query(id: 1)]") == nil)
  }

  @Test func `An Entry Of Another Type Is Reported As Undecodable`() async throws {
    let problems = Recorder<String>()
    let cache = try await self.cache(problems: problems)
    cache.save("text", forKey: "k", updatedAt: self.clock.now())
    try await cache.flush()
    #expect(await cache.load(Int.self, forKey: "k") == nil)
    #expect(problems.values.count == 1)
  }

  @Test func `Saved Values Are Written In The Background After The Write Delay`() async throws {
    let delayer = ManualDelayer()
    let cache = try await PersistentQueryCache(
      storage: self.database.open(),
      clock: self.clock,
      delayer: delayer,
      writeDelay: .milliseconds(50)
    )
    cache.save(1, forKey: "a", updatedAt: self.clock.now())
    cache.save(2, forKey: "b", updatedAt: self.clock.now())
    await delayer.waitForDelays(count: 1)
    #expect(delayer.delays == [.milliseconds(50)])
    #expect(try await cache.statistics().entryCount == 0)
    delayer.resumeNext()
    // NB: Whether the background batch or this flush writes the values, a flush returns after
    // they are written: batches are serialized.
    try await cache.flush()
    #expect(try await cache.statistics().entryCount == 2)
  }

  @Test func `A Flush Throws When A Value Could Not Be Written, And Writes It Next Time`()
    async throws
  {
    let storage = FailingStorage(base: try self.database.open())
    let problems = Recorder<String>()
    let cache = try await PersistentQueryCache(
      storage: storage,
      clock: self.clock,
      delayer: ManualDelayer(),
      onProblem: { problems.record($0.description) }
    )
    storage.fail(.writeCache, times: 1)
    cache.save(1, forKey: "a", updatedAt: self.clock.now())
    let error = await #expect(throws: PersistentQueryCache.FlushError.self) {
      try await cache.flush()
    }
    #expect(error?.problems.count == 1)
    #expect(problems.values.count == 1)
    cache.save(2, forKey: "a", updatedAt: self.clock.now())
    try await cache.flush()
    #expect(await cache.load(Int.self, forKey: "a")?.value == 2)
  }

  @Test func `A Flush Whose Caller Is Cancelled Still Writes The Values`() async throws {
    let cache = try await self.cache()
    cache.save(1, forKey: "a", updatedAt: self.clock.now())
    let flushing = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await cache.flush()
    }
    try await flushing.value
    #expect(try await cache.statistics().entryCount == 1)
  }

  // MARK: A storage without synchronous reads

  @Test func `A Store On An Async-Only Storage Gets The Saved Value After It Is Created`()
    async throws
  {
    let storage = AsyncOnlyStorage(base: try self.database.open(), holdsReads: true)
    let cache = try await self.asyncOnlyCache(storage)
    let key = try PersistentQueryCache.key(for: ["numbers"], operationType: NumbersQuery.self)
    cache.save([1, 2], forKey: key, updatedAt: self.clock.now())
    try await cache.flush()
    // NB: The store does not fetch by itself when the test subscribes: a fetched value would race
    // the saved one, and the newer one wins.
    let store = self.client().store(
      for: NumbersQuery(value: [3]).enableAutomaticRunning(onlyWhen: .always(false))
        .persisted(in: cache)
    )
    await storage.readStarted.wait()
    // NB: The read is held mid-way: the store exists, without the saved value yet.
    #expect(store.currentValue == nil)
    let loaded = Gate()
    let subscription = store.subscribe(
      with: QueryEventHandler(onStateChanged: { state, _ in
        if state.currentValue != nil { loaded.open() }
      })
    )
    storage.reads.open()
    await loaded.wait()
    subscription.cancel()
    #expect(store.currentValue == [1, 2])
    #expect(store.valueLastUpdatedAt == self.clock.now())
    #expect(store.isInvalidated)
  }

  @Test func `A Value Recorded While The Entry Is Read Wins Over The Saved One`() async throws {
    let storage = AsyncOnlyStorage(base: try self.database.open(), holdsReads: true)
    let cache = try await self.asyncOnlyCache(storage)
    let key = try PersistentQueryCache.key(for: ["numbers"], operationType: NumbersQuery.self)
    cache.save([1, 2], forKey: key, updatedAt: self.clock.now())
    try await cache.flush()
    let store = self.client().store(for: NumbersQuery(value: [3]).persisted(in: cache))
    await storage.readStarted.wait()
    try await store.fetch()
    #expect(store.currentValue == [3])

    storage.reads.open()
    await cache.waitForBackgroundLoads()
    #expect(store.currentValue == [3])
    #expect(!store.isInvalidated)
    #expect(store.valueUpdateCount == 1)
  }

  private func asyncOnlyCache(_ storage: AsyncOnlyStorage) async throws -> PersistentQueryCache {
    try await PersistentQueryCache(
      storage: storage,
      maxAge: nil,
      clock: self.clock,
      delayer: ManualDelayer()
    )
  }

  private func client() -> OperationClient {
    var context = OperationContext()
    context.operationClock = self.clock
    return OperationClient(defaultContext: context)
  }
}

/// A query whose value is a list of numbers, at `["numbers"]`.
struct NumbersQuery: QueryRequest, Hashable, Sendable {
  let value: [Int]

  var path: OperationPath { ["numbers"] }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<[Int], any Error>
  ) async throws -> [Int] {
    self.value
  }
}
