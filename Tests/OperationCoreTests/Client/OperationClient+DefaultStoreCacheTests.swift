import Operation
import OperationCore
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `OperationClient+DefaultStoreCache tests` {
  @Test(arguments: [
    (MemoryPressure.normal, false),
    (MemoryPressure.warning, true),
    (MemoryPressure.critical, true),
  ])
  func `Evicts Idle Stores On Warning And Critical But Not Normal`(
    pressure: MemoryPressure,
    isEvicted: Bool
  ) {
    let source = ManualMemoryPressureSource()
    let client = Self.client(source)
    let store = client.store(for: EvictionQuery(id: 1))
    _ = client.store(for: EvictionQuery(id: 2))

    source.send(pressure)

    #expect((client.store(with: store.path) == nil) == isEvicted)
    #expect(client.stores(matching: []).count == (isEvicted ? 0 : 2))
  }

  @Test func `Does Not Evict A Store While It Has Subscribers`() {
    let source = ManualMemoryPressureSource()
    let client = Self.client(source)
    let observed = client.store(for: EvictionQuery(id: 1).disableAutomaticRunning())
    let idle = client.store(for: EvictionQuery(id: 2))
    let subscription = observed.subscribe(with: OperationEventHandler())

    source.send(.critical)
    #expect(client.store(with: observed.path) != nil)
    #expect(client.store(with: idle.path) == nil)

    subscription.cancel()
    source.send(.critical)
    #expect(client.store(with: observed.path) == nil)
  }

  @Test func `Evict When Empty Pressure Keeps The Store`() {
    let source = ManualMemoryPressureSource()
    let client = Self.client(source)
    let pinned = client.store(for: EvictionQuery(id: 1).evictWhen(pressure: []))

    source.send(.warning)
    source.send(.critical)

    #expect(client.store(with: pinned.path) != nil)
  }

  @Test func `Evict When Critical Keeps The Store On A Warning`() {
    let source = ManualMemoryPressureSource()
    let client = Self.client(source)
    let store = client.store(for: EvictionQuery(id: 1).evictWhen(pressure: .critical))

    source.send(.warning)
    #expect(client.store(with: store.path) != nil)

    source.send(.critical)
    #expect(client.store(with: store.path) == nil)
  }

  @Test func `An Empty Pressure Evicts Nothing`() {
    let source = ManualMemoryPressureSource()
    let client = Self.client(source)
    let store = client.store(for: EvictionQuery(id: 1))

    source.send([])

    #expect(client.store(with: store.path) != nil)
  }

  @Test func `Stores Inserted Straight Into The Cache Are Reused And Evicted`() {
    let source = ManualMemoryPressureSource()
    let cache = OperationClient.DefaultStoreCache(memoryPressureSource: source)
    let inserted = OperationStore.detached(query: EvictionQuery(id: 1), initialValue: nil)
    cache.withStores { $0.update(OpaqueOperationStore(erasing: inserted)) }
    let client = OperationClient(storeCache: cache, storeCreator: .defaultTesting)

    #expect(client.store(for: EvictionQuery(id: 1)) === inserted)

    source.send(.warning)
    #expect(cache.withStores { $0.isEmpty })
  }

  @Test func `An Evicted Path Gets A New Store`() {
    let source = ManualMemoryPressureSource()
    let client = Self.client(source)
    let evicted = client.store(for: EvictionQuery(id: 1))

    source.send(.warning)
    let recreated = client.store(for: EvictionQuery(id: 1))

    #expect(recreated !== evicted)
    #expect(client.store(for: EvictionQuery(id: 1)) === recreated)
  }

  @Test func `Eviction Does Not Notify Client Subscribers`() {
    let source = ManualMemoryPressureSource()
    let client = Self.client(source)
    let changes = Lock([(added: Set<OperationPath>, removed: Set<OperationPath>)]())
    let subscription = client.subscribe { change in
      changes.withLock { $0.append((change.storesAdded.paths, change.storesRemoved.paths)) }
    }
    let store = client.store(for: EvictionQuery(id: 1))

    source.send(.critical)

    #expect(client.store(with: store.path) == nil)
    let recorded = changes.withLock { $0 }
    #expect(recorded.count == 1)
    #expect(recorded.first?.added == [store.path])
    #expect(recorded.first?.removed == [])
    subscription.cancel()
  }

  @Test func `The Cache Stops Listening When It Is Released`() {
    let source = ManualMemoryPressureSource()
    var cache: OperationClient.DefaultStoreCache? = OperationClient.DefaultStoreCache(
      memoryPressureSource: source
    )
    #expect(source.subscriberCount == 1)
    weak let weakCache = cache

    cache = nil

    #expect(weakCache == nil)
    #expect(source.subscriberCount == 0)
    source.send(.critical)
  }

  @Test func `A Cache Without A Source Keeps Its Stores`() {
    let cache = OperationClient.DefaultStoreCache(memoryPressureSource: nil)
    let store = OperationStore.detached(query: EvictionQuery(id: 1), initialValue: nil)
    cache.withStores { $0.update(OpaqueOperationStore(erasing: store)) }
    #expect(cache.withStores { $0.count } == 1)
  }

  @Test func `The Default Source Is Nil Under A Test Runner`() {
    #expect(OperationClient.defaultMemoryPressureSource == nil)
    let client = OperationClient(storeCache: OperationClient.DefaultStoreCache())
    let store = client.store(for: EvictionQuery(id: 1))
    #expect(client.store(with: store.path) != nil)
  }

  // MARK: - Limits

  @Test func `Beyond Its Store Limit The Cache Evicts The Least Recently Used Unobserved Store`() {
    let client = Self.client(limits: OperationClient.StoreLimits(maxStoreCount: 3))
    let stores = (1...3).map { client.store(for: EvictionQuery(id: $0)) }
    _ = client.store(for: EvictionQuery(id: 1))

    let fourth = client.store(for: EvictionQuery(id: 4))
    #expect(Self.ids(in: client) == [1, 3, 4])
    #expect(stores[1].isCollected)
    #expect(!stores[0].isCollected && !stores[2].isCollected && !fourth.isCollected)

    _ = client.store(for: EvictionQuery(id: 5))
    #expect(Self.ids(in: client) == [1, 4, 5])
    #expect(stores[2].isCollected)
  }

  @Test func `Observed Stores Are Never Evicted, Even Beyond The Limit`() {
    let client = Self.client(limits: OperationClient.StoreLimits(maxStoreCount: 2))
    let observed = (1...2).map {
      client.store(for: EvictionQuery(id: $0).disableAutomaticRunning())
    }
    let subscriptions = observed.map { $0.subscribe(with: OperationEventHandler()) }

    let third = client.store(for: EvictionQuery(id: 3))
    #expect(Self.ids(in: client) == [1, 2])
    #expect(third.isCollected)

    subscriptions[0].cancel()
    _ = client.store(for: EvictionQuery(id: 4))
    #expect(Self.ids(in: client) == [2, 4])
    #expect(observed[0].isCollected)
    subscriptions[1].cancel()
  }

  @Test func `A Store With A Run In Flight Is Not Evicted`() async throws {
    let client = Self.client(limits: OperationClient.StoreLimits(maxStoreCount: 1))
    let started = Gate()
    let gate = Gate()
    let held = client.store(for: EvictionGatedQuery(started: started, gate: gate))
    let run = Task { try await held.fetch() }
    await started.wait()

    _ = client.store(for: EvictionQuery(id: 2))
    #expect(client.store(with: held.path) != nil)
    #expect(Self.ids(in: client) == [])

    gate.open()
    _ = try await run.value
    _ = client.store(for: EvictionQuery(id: 3))
    #expect(client.store(with: held.path) == nil)
    #expect(Self.ids(in: client) == [3])
  }

  @Test func `Beyond Its Byte Limit The Cache Evicts By Recency When A Value Grows`() async throws {
    let client = Self.client(limits: OperationClient.StoreLimits(maxByteCount: 10))
    let first = client.store(for: TextQuery(text: "abcdef"))
    let second = client.store(for: TextQuery(text: "ghijkl"))
    try await first.fetch()
    #expect(client.stores(matching: []).count == 2)

    try await second.fetch()
    #expect(client.store(with: first.path) == nil)
    #expect(client.store(with: second.path) != nil)
    #expect(first.isCollected)
  }

  @Test func `The Byte Limit Uses The Estimate The User Gives`() async throws {
    let limits = OperationClient.StoreLimits(maxByteCount: 1_000) { _ in 600 }
    let client = Self.client(limits: limits)
    let first = client.store(for: TextQuery(text: "a"))
    try await first.fetch()
    let second = client.store(for: TextQuery(text: "b"))
    try await second.fetch()
    #expect(client.store(with: first.path) == nil)
    #expect(client.store(with: second.path) != nil)
  }

  @Test func `An Evicted Store Rejoins Its Client When It Gains A Subscriber`() {
    let client = Self.client(limits: OperationClient.StoreLimits(maxStoreCount: 1))
    let evicted = client.store(for: EvictionQuery(id: 1).disableAutomaticRunning())
    _ = client.store(for: EvictionQuery(id: 2))
    #expect(evicted.isCollected)
    client.clearStores()

    let subscription = evicted.subscribe(with: OperationEventHandler())
    #expect(client.store(with: evicted.path) != nil)
    #expect(!evicted.isCollected)
    subscription.cancel()
  }

  @Test func `Evictions By Limit Are Reported To Instruments`() {
    let instrument = EvictionInstrument()
    var context = OperationContext()
    context.operationInstruments = [instrument]
    let client = OperationClient(
      defaultContext: context,
      storeCache: OperationClient.DefaultStoreCache(
        memoryPressureSource: nil,
        limits: OperationClient.StoreLimits(maxStoreCount: 1)
      ),
      storeCreator: .defaultTesting
    )
    let first = client.store(for: EvictionQuery(id: 1))
    _ = client.store(for: EvictionQuery(id: 2))
    #expect(instrument.evictedPaths.values == [first.path])
  }

  @Test func `The Default Byte Estimate Measures Bytes, Text And Optionals`() {
    let estimate = OperationClient.StoreLimits.defaultEstimatedByteCount(of:)
    #expect(estimate("héllo") == 6)
    #expect(estimate([UInt8](repeating: 0, count: 42)) == 42)
    #expect(estimate(Optional("abc")) == 3)
    #expect(estimate(String?.none) == 0)
    #expect(estimate(Sized(estimatedByteCount: 1234)) == 1234)
    #expect(estimate(Int64(1)) == 8)
  }

  private static func client(limits: OperationClient.StoreLimits) -> OperationClient {
    OperationClient(
      storeCache: OperationClient.DefaultStoreCache(memoryPressureSource: nil, limits: limits),
      storeCreator: .defaultTesting
    )
  }

  private static func ids(in client: OperationClient) -> [Int] {
    client.stores(matching: [], of: EvictionQuery.State.self)
      .compactMap { ($0.path.first?.base as? EvictionQuery)?.id }
      .sorted()
  }

  private static func client(_ source: ManualMemoryPressureSource) -> OperationClient {
    OperationClient(
      storeCache: OperationClient.DefaultStoreCache(memoryPressureSource: source),
      storeCreator: .defaultTesting
    )
  }
}

private struct EvictionQuery: QueryRequest, Hashable {
  let id: Int

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.id
  }
}

private struct TextQuery: QueryRequest, Hashable {
  let text: String

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<String, any Error>
  ) async throws -> String {
    self.text
  }
}

private struct EvictionGatedQuery: QueryRequest {
  let started: Gate
  let gate: Gate

  var path: OperationPath { ["gated"] }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.started.open()
    await self.gate.wait()
    return 0
  }
}

private struct Sized: OperationByteCountEstimating, Sendable {
  let estimatedByteCount: Int
}

/// Records the paths of the stores evicted.
private final class EvictionInstrument: OperationInstrument {
  let evictedPaths = ValueRecorder<OperationPath>()

  func started(_ work: OperationWork) -> (any OperationWorkObservation)? { nil }

  func record(_ event: OperationInstrumentEvent, in run: OperationRunInfo) {
    if case .evicted = event {
      self.evictedPaths.record(run.path)
    }
  }
}
