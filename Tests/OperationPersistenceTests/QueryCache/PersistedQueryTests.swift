import Foundation
import Operation
import OperationCore
import OperationPersistence
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `PersistedQuery tests` {
  private let database = TemporaryDatabase()
  private let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 1_000))

  private func cache(problems: Recorder<String> = Recorder()) async throws -> PersistentQueryCache {
    try await PersistentQueryCache(
      storage: self.database.open(),
      maxAge: nil,
      clock: self.clock,
      delayer: ManualDelayer(),
      onProblem: { problems.record($0.description) }
    )
  }

  private func client() -> OperationClient {
    var context = OperationContext()
    context.operationClock = self.clock
    return OperationClient(defaultContext: context)
  }

  @Test func `A Fetched Value Is Saved And The Next Launch Starts From It, Stale`() async throws {
    let cache = try await self.cache()
    let first = self.client().store(for: Feed(value: ["a", "b"]).persisted(in: cache))
    try await first.fetch()
    try await cache.flush()

    self.clock.advance(by: 60)
    let next = self.client().store(for: Feed(value: ["c"]).persisted(in: try await self.cache()))
    #expect(next.currentValue == ["a", "b"])
    #expect(next.valueLastUpdatedAt == Date(timeIntervalSince1970: 1_000))
    #expect(next.isInvalidated)
    #expect(next.isStale)

    try await next.fetch()
    #expect(next.currentValue == ["c"])
    #expect(!next.isInvalidated)
  }

  @Test func `A Persisted Store Runs When Observed And Shows The Saved Value Until Then`()
    async throws
  {
    let cache = try await self.cache()
    let key = try PersistentQueryCache.key(for: Feed.path, operationType: GatedFeed.self)
    cache.save(["saved"], forKey: key, updatedAt: .now)
    try await cache.flush()
    let query = GatedFeed()
    let store = self.client().store(for: query.persisted(in: cache))
    let subscription = store.subscribe { _ in }
    await query.started.wait()
    #expect(store.currentValue == ["saved"])
    query.gate.open()
    try await store.activeTasks.first?.runIfNeeded()
    #expect(store.currentValue == ["fetched"])
    subscription.cancel()
  }

  @Test func `Persisting Does Not Count As A Subscriber`() async throws {
    let store = self.client().store(for: Feed(value: []).persisted(in: try await self.cache()))
    #expect(store.subscriberCount == 0)
    #expect(!store.isLoading)
  }

  @Test func `A Value Set On The Store Is Saved Too`() async throws {
    let cache = try await self.cache()
    let store = self.client().store(for: Feed(value: []).persisted(in: cache, key: "feed"))
    store.currentValue = ["set"]
    try await cache.flush()
    #expect(await cache.load([String]?.self, forKey: "feed")?.value == ["set"])
  }

  @Test func `A Corrupt Entry Leaves The Store Empty And Is Reported`() async throws {
    let problems = Recorder<String>()
    let cache = try await self.cache(problems: problems)
    cache.save(42, forKey: "feed", updatedAt: .now)
    try await cache.flush()
    let store = self.client().store(for: Feed(value: []).persisted(in: cache, key: "feed"))
    #expect(store.currentValue == nil)
    #expect(problems.values.count == 1)
  }

  @Test func `The Persisting Store Creator Persists Codable Values Only`() async throws {
    let cache = try await self.cache()
    let client = OperationClient(
      storeCreator: PersistingStoreCreator(cache: cache, base: .defaultTesting)
    )
    try await client.store(for: Feed(value: ["x"])).fetch()
    try await client.store(for: Opaque()).fetch()
    try await cache.flush()
    #expect(try await cache.statistics().entryCount == 1)
    let key = try PersistentQueryCache.key(for: Feed.path, operationType: Feed.self)
    #expect(await cache.load([String]?.self, forKey: key) != nil)
  }

  @Test func `A Value Is Never Loaded By Another Operation Type With An Equal Path`()
    async throws
  {
    let cache = try await self.cache()
    try await self.client().store(for: Feed(value: ["feed"]).persisted(in: cache)).fetch()
    try await cache.flush()

    let other = self.client().store(for: GatedFeed().persisted(in: try await self.cache()))
    #expect(other.currentValue == nil)
    let same = self.client().store(for: Feed(value: []).retry(limit: 2).persisted(in: cache))
    #expect(same.currentValue == ["feed"])
  }

  @Test func `A Path Without A Stable Key Is Reported And Not Persisted`() async throws {
    let problems = Recorder<String>()
    let cache = try await self.cache(problems: problems)
    let store = self.client().store(for: ByReference(reference: Reference()).persisted(in: cache))
    store.currentValue = "value"
    try await cache.flush()
    #expect(try await cache.statistics().entryCount == 0)
    #expect(problems.values.count == 1)
    #expect(problems.values.first?.contains("Reference") == true)
    #expect(problems.values.first?.contains("is a class") == true)

    let keyed = self.client().store(
      for: ByReference(reference: Reference()).persisted(in: cache, key: "by-reference")
    )
    keyed.currentValue = "keyed"
    try await cache.flush()
    #expect(await cache.load(String?.self, forKey: "by-reference")?.value == "keyed")
  }

  @Test func `A Failed Write Is Reported And Counted By The Store's Instruments`() async throws {
    let storage = FailingStorage(base: try self.database.open())
    let problems = Recorder<String>()
    let cache = try await PersistentQueryCache(
      storage: storage,
      maxAge: nil,
      clock: self.clock,
      delayer: ManualDelayer(),
      onProblem: { problems.record($0.description) }
    )
    let instrument = EventRecorder()
    var context = OperationContext()
    context.operationClock = self.clock
    context.operationInstruments = [instrument]
    let client = OperationClient(defaultContext: context)
    let store = client.store(for: Feed(value: []).persisted(in: cache))

    storage.fail(.writeCache, times: 1)
    store.currentValue = ["lost"]
    await #expect(throws: PersistentQueryCache.FlushError.self) { try await cache.flush() }
    #expect(
      problems.values == ["The query cache could not be written: \(FailingStorage.DiskFull())"]
    )
    #expect(instrument.events == ["persistenceWriteFailed [\"feed\"]"])
    #expect(try await cache.statistics().entryCount == 0)

    store.currentValue = ["kept"]
    try await cache.flush()
    #expect(try await cache.statistics().entryCount == 1)
    #expect(instrument.events.count == 1)
  }

  @Test func `An Unencodable Value Is Reported And Counted, And The Others Are Written`()
    async throws
  {
    let problems = Recorder<String>()
    let cache = try await self.cache(problems: problems)
    let instrument = EventRecorder()
    var context = OperationContext()
    context.operationInstruments = [instrument]
    let client = OperationClient(defaultContext: context)
    let ratio = client.store(for: Ratio().persisted(in: cache))
    let feed = client.store(for: Feed(value: []).persisted(in: cache))
    ratio.currentValue = .nan
    feed.currentValue = ["fine"]
    await #expect(throws: PersistentQueryCache.FlushError.self) { try await cache.flush() }
    #expect(problems.values.count == 1)
    #expect(problems.values.first?.contains("could not be encoded") == true)
    #expect(instrument.events == ["persistenceWriteFailed [\"ratio\"]"])
    #expect(try await cache.statistics().entryCount == 1)
  }

  @Test func `The Cache's Clock Is Never Read Under A Library Lock`() async throws {
    let clock = LockCheckingClock(base: self.clock)
    let cache = try await PersistentQueryCache(
      storage: self.database.open(),
      maxAge: nil,
      clock: clock,
      delayer: ManualDelayer()
    )
    let client = self.client()
    let store = client.store(for: Feed(value: ["fetched"]).persisted(in: cache))
    try await store.fetch()
    store.currentValue = ["set"]
    // NB: The closures of `withExclusiveAccess` and `withStores` are the caller's own code under
    // the lock; what they do to a persisted store must still not run the cache's clock there.
    store.withExclusiveAccess { $0.currentValue = ["set under the store's lock"] }
    try await cache.flush()
    #expect(clock.readings.count >= 3)
    #expect(clock.readings.allSatisfy { !$0 }, "saving")
    let savingReadings = clock.readings.count
    let loaded = client.withStores(matching: Feed.path) { _, createStore in
      createStore(for: Feed(value: []).persisted(in: cache))
    }
    // NB: A store created under the client's lock loads its value right after the release.
    #expect(loaded.currentValue == ["set under the store's lock"])
    let changed = client.withStores(matching: Feed.path) { _, createStore in
      let store = createStore(for: Feed(value: []).persisted(in: cache))
      store.currentValue = ["set under the client's lock"]
      return store
    }
    #expect(changed.currentValue == ["set under the client's lock"])
    try await cache.flush()
    #expect(clock.readings.count >= savingReadings + 2)
    #expect(clock.readings.allSatisfy { !$0 }, "loading and saving in the client's lock")
    let next = client.withStores(matching: Feed.path) { _, createStore in
      createStore(for: Feed(value: []).persisted(in: cache))
    }
    #expect(next.currentValue == ["set under the client's lock"])
  }

  @Test func `The Default Problem Handler Reports An Issue`() async throws {
    let cache = try await PersistentQueryCache(
      storage: self.database.open(),
      maxAge: nil,
      clock: self.clock,
      delayer: ManualDelayer()
    )
    cache.save(Double.nan, forKey: "nan", updatedAt: .now)
    await withKnownIssue {
      await #expect(throws: PersistentQueryCache.FlushError.self) { try await cache.flush() }
    } matching: { issue in
      issue.description.contains("'nan' could not be encoded")
    }
    #expect(try await cache.statistics().entryCount == 0)
  }
}

/// A clock that records, at each reading, whether the thread holds a library lock.
private final class LockCheckingClock: OperationClock, Sendable {
  let base: ManualOperationClock
  private let recorded = Recorder<Bool>()

  init(base: ManualOperationClock) {
    self.base = base
  }

  /// For each reading, whether a library lock was held.
  var readings: [Bool] { self.recorded.values }

  func now() -> Date {
    self.recorded.record(LibraryLocks.areHeldByCurrentThread)
    return self.base.now()
  }
}

/// Records the instrument events of stores.
private final class EventRecorder: OperationInstrument {
  private let recorded = Recorder<String>()

  var events: [String] { self.recorded.values }

  func started(_ work: OperationWork) -> (any OperationWorkObservation)? { nil }

  func record(_ event: OperationInstrumentEvent, in run: OperationRunInfo) {
    self.recorded.record("\(event) \(run.path.map { "\($0.base)" })")
  }
}

// NB: The operations are internal, not private: the cache refuses to key a private type, whose
// runtime name changes from one process to the next.
struct Ratio: QueryRequest, Hashable {
  var path: OperationPath { ["ratio"] }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Double, any Error>
  ) async throws -> Double {
    1
  }
}

/// A path element with no stable encoding: an instance of a class.
final class Reference: Hashable, Sendable {
  static func == (lhs: Reference, rhs: Reference) -> Bool { lhs === rhs }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

struct ByReference: QueryRequest {
  let reference: Reference

  var path: OperationPath { [self.reference] }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<String, any Error>
  ) async throws -> String {
    "fetched"
  }
}

struct Feed: QueryRequest, Hashable {
  static let path: OperationPath = ["feed"]
  let value: [String]

  var path: OperationPath { Self.path }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<[String], any Error>
  ) async throws -> [String] {
    self.value
  }
}

struct GatedFeed: QueryRequest {
  let gate = Gate()
  let started = Gate()

  var path: OperationPath { Feed.path }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<[String], any Error>
  ) async throws -> [String] {
    self.started.open()
    await self.gate.wait()
    return ["fetched"]
  }
}

/// A query whose value is not `Codable`.
struct Opaque: QueryRequest, Hashable {
  struct Value: Sendable {}

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, any Error>
  ) async throws -> Value {
    Value()
  }
}
