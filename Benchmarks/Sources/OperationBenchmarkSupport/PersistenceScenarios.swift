import Foundation
public import Operation
public import OperationPersistence
import OperationTestSupport
import Synchronization

// MARK: - Fixtures

/// A query with the path `["item", id]`, whose entry in a ``PersistentQueryCache`` has the key
/// `OperationPath(["item", id])`.
public struct ItemQuery: QueryRequest, Hashable, Sendable {
  /// The item's id.
  public let id: Int

  /// Creates the query for an item.
  public init(id: Int) {
    self.id = id
  }

  /// `["item", id]`.
  public var path: OperationPath {
    ["item", self.id]
  }

  /// Returns the id.
  public func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.id
  }
}

/// A directory of its own under this process's folder in the temporary directory, removed with
/// the object.
final class TemporaryDirectory: Sendable {
  let url: URL

  /// This process's folder, `operation-benchmarks-<pid>` in the temporary directory.
  static var processFolder: URL {
    FileManager.default.temporaryDirectory
      .appendingPathComponent("operation-benchmarks-\(ProcessInfo.processInfo.processIdentifier)")
  }

  init() {
    self.url = Self.processFolder.appendingPathComponent(UUID().uuidString)
    // NB: The benchmarks cannot run without it; failing here is the clearest report.
    try! FileManager.default.createDirectory(at: self.url, withIntermediateDirectories: true)
  }

  /// The path of the database file in the directory.
  var databasePath: String {
    self.url.appendingPathComponent("cache.sqlite").path
  }

  deinit {
    try? FileManager.default.removeItem(at: self.url)
  }
}

/// Removes the database files of this process's fixtures, alive or not.
///
/// package-benchmark keeps a benchmark's setup result until the process exits, so the fixtures
/// of the suite never remove their files themselves; the suite calls this in their teardown.
public func removePersistenceFiles() {
  try? FileManager.default.removeItem(at: TemporaryDirectory.processFolder)
}

/// When the cache's background writer writes what the stores saved.
public enum BackgroundWriter: String, Sendable, CaseIterable {
  /// Never by itself: the writer's delay lasts until the fixture goes away, so that only an
  /// explicit `flush()` writes, and the figures of the fetch path hold no write.
  case held = "writer held"
  /// As the cache does by default: one transaction 50 ms after the first value it records.
  case defaultDelay = "50 ms write delay"
}

/// Opens a cache on `storage` for the benchmarks: the default version and age (24 hours), the
/// given bounds, and the given background writer.
///
/// The default bounds keep 1,000 entries; the benchmarks of 10,000 entries pass bounds that hold
/// them all (or have no bound), so that the trim after each batch removes nothing.
func makeCache(
  storage: any OperationPersistenceStorage,
  bounds: PersistentQueryCache.Bounds,
  writer: BackgroundWriter,
  delayer: ManualDelayer
) throws -> PersistentQueryCache {
  try waiting {
    switch writer {
    case .held:
      try await PersistentQueryCache(
        storage: storage,
        bounds: bounds,
        delayer: delayer,
        onProblem: reportProblem
      )
    case .defaultDelay:
      try await PersistentQueryCache(storage: storage, bounds: bounds, onProblem: reportProblem)
    }
  }
}

/// Waits for `body` from synchronous set-up code, which no benchmark measures.
func waiting<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) throws -> Value
{
  let done = DispatchSemaphore(value: 0)
  let result = Mutex<Result<Value, any Error>?>(nil)
  Task {
    do {
      let value = try await body()
      result.withLock { $0 = .success(value) }
    } catch {
      result.withLock { $0 = .failure(error) }
    }
    done.signal()
  }
  done.wait()
  // NB: The task set the result before it signalled.
  return try result.withLock { $0! }.get()
}

/// A problem of the cache ends the benchmark: its figures would not mean what they say.
@Sendable private func reportProblem(_ problem: PersistentQueryCache.Problem) {
  fatalError("The benchmark's query cache reported a problem: \(problem)")
}

/// Empties the query cache table.
private func removeEveryEntry(from storage: any OperationPersistenceStorage) async throws {
  // NB: Every entry has a version, and none has this one.
  _ = try await storage.removeCacheEntries(
    notMatching: "no entry has this version",
    updatedBefore: nil
  )
}

// MARK: - (12): hydrating 10,000 persisted stores

/// The figures of one ``HydrationFixture/hydrate(count:measuring:)``.
public struct HydrationFigures: Sendable {
  /// The number of stores created.
  public let storeCount: Int
  /// The stores whose value came from disk; `storeCount` when every entry loaded.
  public let loadedCount: Int
  /// Opening the database file and the cache, as at launch.
  public let openNanoseconds: Int
  /// Creating the stores, each of which reads and decodes its entry.
  public let hydrationNanoseconds: Int
  /// Writing the accesses that the loads recorded (one transaction), afterwards.
  public let accessFlushNanoseconds: Int
  /// The heap the stores and the cache added, per store.
  public let heapBytesPerStore: Double

  /// The nanoseconds per store created.
  public var nanosecondsPerStore: Double {
    Double(self.hydrationNanoseconds) / Double(self.storeCount)
  }
}

/// (12) A database file with 10,000 entries, `OperationPath(["item", i])` → `i`, hydrated by
/// 10,000 stores of ``ItemQuery``s `.persisted(in: cache)` on a fresh client.
public final class HydrationFixture: Sendable {
  /// The number of entries on disk.
  public let entryCount: Int
  private let directory = TemporaryDirectory()
  private let delayer = ManualDelayer()
  private let bounds: PersistentQueryCache.Bounds

  /// Writes `entryCount` entries with the cache itself (`save` and `flush`), then closes the
  /// file.
  public init(entryCount: Int = 10_000) throws {
    self.entryCount = entryCount
    self.bounds = PersistentQueryCache.Bounds(maxEntryCount: entryCount)
    let cache = try makeCache(
      storage: SQLitePersistence(path: self.directory.databasePath),
      bounds: self.bounds,
      writer: .held,
      delayer: self.delayer
    )
    let now = Date()
    for id in 0..<entryCount {
      cache.save(
        Int?.some(id),
        forKey: try PersistentQueryCache.key(
          for: ItemQuery(id: id).path,
          operationType: ItemQuery.self
        ),
        updatedAt: now
      )
    }
    flushWaiting(cache)
    let statistics = try waiting { try await cache.statistics() }
    precondition(statistics.entryCount == entryCount, "\(statistics.entryCount) entries on disk")
  }

  deinit {
    self.delayer.resumeAll()
  }

  /// The baseline of ``hydrate(count:measuring:)``: creates the stores of the first `count`
  /// items, not persisted, on a fresh client with the client defaults.
  ///
  /// - Parameters:
  ///   - count: The number of stores; `entryCount` by default.
  ///   - measuring: Wraps the creation of the stores alone.
  /// - Returns: The nanoseconds the creation took.
  public func createPlainStores(
    count: Int? = nil,
    measuring: (_ body: () -> Void) -> Void = { $0() }
  ) -> Int {
    let count = count ?? self.entryCount
    let client = makeDefaultClient()
    var stores = [OperationStore<QueryState<Int, any Error>>]()
    stores.reserveCapacity(count)
    var elapsed = 0
    measuring {
      let start = ContinuousClock.now
      for id in 0..<count {
        stores.append(client.store(for: ItemQuery(id: id)))
      }
      elapsed = nanoseconds(since: start)
    }
    withExtendedLifetime((client, stores)) {}
    return elapsed
  }

  /// Opens the file anew, as an app does at launch, and creates the stores of the first `count`
  /// items on a fresh client with the client defaults; then writes the accesses the loads
  /// recorded.
  ///
  /// - Parameters:
  ///   - count: The number of stores; every entry by default.
  ///   - measuring: Wraps the creation of the stores alone, for the benchmark's measurement or
  ///     callgrind's instrumentation.
  /// - Returns: The figures.
  public func hydrate(
    count: Int? = nil,
    measuring: (_ body: () -> Void) -> Void = { $0() }
  ) throws -> HydrationFigures {
    let count = min(count ?? self.entryCount, self.entryCount)
    let openStart = ContinuousClock.now
    let cache = try makeCache(
      storage: SQLitePersistence(path: self.directory.databasePath),
      bounds: self.bounds,
      writer: .held,
      delayer: self.delayer
    )
    let open = nanoseconds(since: openStart)
    let client = makeDefaultClient()
    var stores = [OperationStore<QueryState<Int, any Error>>]()
    stores.reserveCapacity(count)
    let before = Memory.snapshot()
    var hydration = 0
    measuring {
      let start = ContinuousClock.now
      for id in 0..<count {
        stores.append(client.store(for: ItemQuery(id: id).persisted(in: cache)))
      }
      hydration = nanoseconds(since: start)
    }
    let after = Memory.snapshot()
    let loaded = stores.indices.count { stores[$0].currentValue == $0 }
    let flushStart = ContinuousClock.now
    flushWaiting(cache)
    let accessFlush = nanoseconds(since: flushStart)
    withExtendedLifetime((client, stores)) {}
    return HydrationFigures(
      storeCount: count,
      loadedCount: loaded,
      openNanoseconds: open,
      hydrationNanoseconds: hydration,
      accessFlushNanoseconds: accessFlush,
      heapBytesPerStore: Double(after.heap - before.heap) / Double(count)
    )
  }
}

// MARK: - (13): writing 10,000 results

/// The parts of ``WriteFixture/run(measuring:)`` that callgrind can count one at a time.
public enum WritePhase: String, Sendable, CaseIterable {
  /// Every plain store fetches once.
  case plainFetches = "plain fetches"
  /// Every persisted store fetches once: the fetch path, which records each value.
  case persistedFetches = "persisted fetches"
  /// The flush that writes the recorded values into an empty table.
  case flush
  /// The flush that writes the values of a second fetch of every store over the first ones.
  case replacingFlush = "replacing flush"
  /// The flush that writes the value of one more fetch, with every other entry on disk.
  case singleFlush = "flush of one result"
}

/// The figures of one ``WriteFixture/run(measuring:)``.
public struct WriteFigures: Sendable {
  /// The number of stores, each of which fetches once per round.
  public let resultCount: Int
  /// The same number of plain stores (no cache), each fetching once: the baseline.
  public let plainFetchNanoseconds: Int
  /// Creating the persisted stores, each of which finds no entry.
  public let creationNanoseconds: Int
  /// Every persisted store fetching once; each fetch records its value for the next write.
  public let persistedFetchNanoseconds: Int
  /// The values recorded and not yet written after those fetches.
  public let pendingAfterFetches: Int
  /// `flush()`: encoding the values and writing them into an empty table, in one transaction.
  public let flushNanoseconds: Int
  /// Every persisted store fetching once more.
  public let secondFetchNanoseconds: Int
  /// `flush()` of the second values, over the entries of the first.
  public let replacingFlushNanoseconds: Int
  /// `flush()` of one value, the next fetch of the first store, with the other entries on disk.
  public let singleFlushNanoseconds: Int
  /// The entries on disk afterwards.
  public let entriesOnDisk: Int

  /// Nanoseconds per result of a total.
  public func perResult(_ nanoseconds: Int) -> Double {
    Double(nanoseconds) / Double(self.resultCount)
  }
}

/// (13) A database file and 10,000 stores of ``ItemQuery``s `.persisted(in: cache)`, each of
/// which fetches once (`fetch()` returns the id at once); then `cache.flush()`.
public final class WriteFixture: Sendable {
  /// The number of stores.
  public let resultCount: Int
  /// The bounds of the cache.
  public let bounds: PersistentQueryCache.Bounds
  /// The most entries the cache keeps; `nil` for no bound.
  public var maxEntryCount: Int? {
    self.bounds.maxEntryCount
  }
  private let directory = TemporaryDirectory()
  private let delayer = ManualDelayer()
  private let storage: SQLitePersistence
  private let cache: PersistentQueryCache

  /// Creates the database file, empty.
  ///
  /// - Parameters:
  ///   - resultCount: The number of stores.
  ///   - isBounded: Whether the cache keeps at most `resultCount` entries (then the trim after
  ///     each batch runs and removes nothing) or has no bound (then there is no trim).
  public init(resultCount: Int = 10_000, isBounded: Bool = true) throws {
    self.resultCount = resultCount
    self.bounds = PersistentQueryCache.Bounds(maxEntryCount: isBounded ? resultCount : nil)
    self.storage = try SQLitePersistence(path: self.directory.databasePath)
    self.cache = try makeCache(
      storage: self.storage,
      bounds: self.bounds,
      writer: .held,
      delayer: self.delayer
    )
  }

  deinit {
    self.delayer.resumeAll()
  }

  /// Empties the table; then, on fresh clients with the client defaults, fetches once with every
  /// plain store and every persisted store, flushes, fetches once more with every persisted
  /// store, and flushes again; then fetches with the first store and flushes its one value.
  ///
  /// - Parameter phase: The phase to count with callgrind (``Callgrind/measure(_:)``), if any.
  /// - Returns: The figures.
  public func run(measuring phase: WritePhase? = nil) async throws -> WriteFigures {
    try await removeEveryEntry(from: self.storage)
    let count = self.resultCount

    let plainClient = makeDefaultClient()
    let plainStores = (0..<count).map { plainClient.store(for: ItemQuery(id: $0)) }
    let plain = try await self.timed(.plainFetches, phase) {
      for store in plainStores {
        keep(try await store.fetch())
      }
    }

    let client = makeDefaultClient()
    var stores = [OperationStore<QueryState<Int, any Error>>]()
    stores.reserveCapacity(count)
    let creationStart = ContinuousClock.now
    for id in 0..<count {
      stores.append(client.store(for: ItemQuery(id: id).persisted(in: self.cache)))
    }
    let creation = nanoseconds(since: creationStart)
    let persisted = try await self.timed(.persistedFetches, phase) {
      for store in stores {
        keep(try await store.fetch())
      }
    }
    let pending = self.cache.pendingWriteCount
    let flush = try await self.timed(.flush, phase) { try await self.cache.flush() }
    let secondStart = ContinuousClock.now
    for store in stores {
      keep(try await store.fetch())
    }
    let second = nanoseconds(since: secondStart)
    let replacingFlush = try await self.timed(.replacingFlush, phase) {
      try await self.cache.flush()
    }
    if let first = stores.first {
      keep(try await first.fetch())
    }
    let singleFlush = try await self.timed(.singleFlush, phase) { try await self.cache.flush() }
    let entries = try await self.cache.statistics().entryCount
    withExtendedLifetime((plainClient, plainStores, client, stores)) {}
    return WriteFigures(
      resultCount: count,
      plainFetchNanoseconds: plain,
      creationNanoseconds: creation,
      persistedFetchNanoseconds: persisted,
      pendingAfterFetches: pending,
      flushNanoseconds: flush,
      secondFetchNanoseconds: second,
      replacingFlushNanoseconds: replacingFlush,
      singleFlushNanoseconds: singleFlush,
      entriesOnDisk: entries
    )
  }

  private func timed(
    _ phase: WritePhase,
    _ measured: WritePhase?,
    _ body: () async throws -> Void
  ) async throws -> Int {
    let start = ContinuousClock.now
    if phase == measured {
      try await Callgrind.measure(body)
    } else {
      try await body()
    }
    return nanoseconds(since: start)
  }
}

// MARK: - (14): a persisted fetch against a plain one

/// A storage that forwards to SQLite and counts the transactions of the query cache; it keeps
/// SQLite's synchronous read, the fast path of store creation.
final class CountingStorage: SynchronousCacheReading {
  let base: SQLitePersistence
  private let counts = Mutex((transactions: 0, entries: 0))

  init(base: SQLitePersistence) {
    self.base = base
  }

  /// The batches written so far, and the entries they held.
  var writes: (transactions: Int, entries: Int) {
    self.counts.withLock { $0 }
  }

  func cacheEntryNow(forKey key: String) throws -> PersistedQueryEntry? {
    try self.base.cacheEntryNow(forKey: key)
  }

  func cacheEntry(forKey key: String) async throws -> PersistedQueryEntry? {
    try await self.base.cacheEntry(forKey: key)
  }

  func writeCacheEntries(
    _ entries: [PersistedQueryEntry],
    accesses: [String: Date],
    bounds: PersistentQueryCache.Bounds
  ) async throws -> Int {
    self.counts.withLock {
      $0.transactions += 1
      $0.entries += entries.count
    }
    return try await self.base.writeCacheEntries(entries, accesses: accesses, bounds: bounds)
  }

  func removeCacheEntries(forKeys keys: [String]) async throws {
    try await self.base.removeCacheEntries(forKeys: keys)
  }

  func removeCacheEntries(notMatching version: String, updatedBefore date: Date?) async throws
    -> Int
  {
    try await self.base.removeCacheEntries(notMatching: version, updatedBefore: date)
  }

  func cacheStatistics() async throws -> PersistentQueryCache.Statistics {
    try await self.base.cacheStatistics()
  }

  func enqueueOutboxEntry(
    kind: String,
    lane: String,
    idempotencyKey: String,
    arguments: Data,
    at date: Date
  ) async throws -> MutationOutbox.Entry {
    try await self.base.enqueueOutboxEntry(
      kind: kind,
      lane: lane,
      idempotencyKey: idempotencyKey,
      arguments: arguments,
      at: date
    )
  }

  func outboxEntries() async throws -> [MutationOutbox.Entry] {
    try await self.base.outboxEntries()
  }

  func requeueFailedOutboxEntry(id: Int64, at date: Date) async throws -> MutationOutbox.Entry? {
    try await self.base.requeueFailedOutboxEntry(id: id, at: date)
  }

  func removeFailedOutboxEntry(id: Int64) async throws -> Bool {
    try await self.base.removeFailedOutboxEntry(id: id)
  }

  func claimNextOutboxEntry(
    inLane lane: String,
    worker: String,
    at now: Date,
    leaseUntil: Date
  ) async throws -> MutationOutbox.ClaimResult {
    try await self.base.claimNextOutboxEntry(
      inLane: lane,
      worker: worker,
      at: now,
      leaseUntil: leaseUntil
    )
  }

  func renewOutboxClaim(_ claim: MutationOutbox.Claim, until date: Date) async throws
    -> MutationOutbox.Claim
  {
    try await self.base.renewOutboxClaim(claim, until: date)
  }

  func releaseOutboxClaim(
    _ claim: MutationOutbox.Claim,
    lastError: String?,
    at date: Date
  ) async throws {
    try await self.base.releaseOutboxClaim(claim, lastError: lastError, at: date)
  }

  func completeOutboxClaim(_ claim: MutationOutbox.Claim) async throws {
    try await self.base.completeOutboxClaim(claim)
  }

  func failOutboxClaim(
    _ claim: MutationOutbox.Claim,
    lastError: String,
    at date: Date
  ) async throws {
    try await self.base.failOutboxClaim(claim, lastError: lastError, at: date)
  }

  func claimOutbox(owner: String) async throws {
    try await self.base.claimOutbox(owner: owner)
  }

  func releaseOutbox() async {
    await self.base.releaseOutbox()
  }
}

/// Waits for `cache.flush()` from synchronous set-up code, which no benchmark measures.
func flushWaiting(_ cache: PersistentQueryCache) {
  let done = DispatchSemaphore(value: 0)
  Task {
    do {
      try await cache.flush()
    } catch {
      fatalError("The benchmark's query cache could not flush: \(error)")
    }
    done.signal()
  }
  done.wait()
}

/// (14) A detached store of ``TrivialQuery`` `.persisted(in: cache, key: "trivial")` whose entry
/// is on disk and already loaded: the persisted counterpart of ``SequentialFetches/plain()``.
public final class PersistedFetches: Sendable {
  /// When the cache writes what the store saves.
  public let writer: BackgroundWriter
  private let directory = TemporaryDirectory()
  private let delayer = ManualDelayer()
  private let storage: CountingStorage
  private let cache: PersistentQueryCache
  private let store: OperationStore<QueryState<Int, any Error>>

  /// Writes the entry, creates the store (which loads it), and writes the access the load
  /// recorded, so that nothing is pending when the fetches start.
  public init(writer: BackgroundWriter) throws {
    self.writer = writer
    self.storage = CountingStorage(base: try SQLitePersistence(path: self.directory.databasePath))
    self.cache = try makeCache(
      storage: self.storage,
      bounds: PersistentQueryCache.Bounds(),
      writer: writer,
      delayer: self.delayer
    )
    self.cache.save(Int?.some(1), forKey: "trivial", updatedAt: Date())
    flushWaiting(self.cache)
    self.store = OperationStore.detached(
      query: TrivialQuery().persisted(in: self.cache, key: "trivial"),
      initialValue: nil
    )
    precondition(self.store.currentValue == 1, "the store did not load its entry")
    flushWaiting(self.cache)
  }

  deinit {
    self.delayer.resumeAll()
  }

  /// Fetches `count` times, one after the other.
  public func run(count: Int) async throws {
    for _ in 0..<count {
      keep(try await self.store.fetch())
    }
  }

  /// The values saved and not yet written.
  public var pendingWriteCount: Int {
    self.cache.pendingWriteCount
  }

  /// The cache's transactions so far (the setup's two included), and the entries they wrote.
  public var writes: (transactions: Int, entries: Int) {
    self.storage.writes
  }

  /// Writes what the fetches saved: `cache.flush()`.
  public func flush() async {
    do {
      try await self.cache.flush()
    } catch {
      fatalError("The benchmark's query cache could not flush: \(error)")
    }
  }
}

/// A controller that does nothing: it returns the empty subscription, so that a store of an
/// operation `controlled(by:)` it has the modifier level of a controller and nothing else.
public struct NoOpController: OperationController, Sendable {
  public typealias State = QueryState<Int, any Error>

  /// Creates the controller.
  public init() {}

  /// Does nothing.
  public func control(with controls: OperationControls<State>) -> OperationSubscription {
    .empty
  }
}

/// (14), for the analysis: a detached store of ``TrivialQuery`` `.controlled(by:)` a
/// ``NoOpController``, which has the modifier level that `persisted(in:key:)` adds but neither
/// its observation of the store nor its saving.
public struct ControlledFetches: Sendable {
  private let store = OperationStore.detached(
    query: TrivialQuery().controlled(by: NoOpController()),
    initialValue: nil
  )

  /// Creates the store.
  public init() {}

  /// Fetches `count` times, one after the other.
  public func run(count: Int) async throws {
    for _ in 0..<count {
      keep(try await self.store.fetch())
    }
  }
}

/// (14), for the analysis: a detached store of ``TrivialQuery`` with one subscriber whose handler
/// has only `onStateChanged`, and does nothing. The store makes and delivers its events as it
/// does for the observer of a persisted store, without the saving.
public final class SubscribedFetches: Sendable {
  private let store = OperationStore.detached(query: TrivialQuery(), initialValue: nil)
  private let subscription: OperationSubscription

  /// Creates the store and subscribes the handler.
  public init() {
    self.subscription = self.store.subscribe(
      with: QueryEventHandler(onStateChanged: { state, _ in keep(state) })
    )
  }

  /// Fetches `count` times, one after the other.
  public func run(count: Int) async throws {
    for _ in 0..<count {
      keep(try await self.store.fetch())
    }
  }
}
