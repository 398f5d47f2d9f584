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
    _ = cache.withStores { $0.update(OpaqueOperationStore(erasing: inserted)) }
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
    _ = cache.withStores { $0.update(OpaqueOperationStore(erasing: store)) }
    #expect(cache.withStores { $0.count } == 1)
  }

  @Test func `The Default Source Is Nil Under A Test Runner`() {
    #expect(OperationClient.defaultMemoryPressureSource == nil)
    let client = OperationClient(storeCache: OperationClient.DefaultStoreCache())
    let store = client.store(for: EvictionQuery(id: 1))
    #expect(client.store(with: store.path) != nil)
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
