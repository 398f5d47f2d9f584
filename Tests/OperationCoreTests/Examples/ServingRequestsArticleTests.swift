import Foundation
import Operation
import OperationSynchronization
import OperationTestSupport
import Testing

/// The examples of the article "Serving requests".
@Suite(.timeLimit(.minutes(1))) struct `Serving requests article tests` {
  @Test func `The Server Profile Bounds Stores And Serves Stale Values While They Refresh`() {
    var context = OperationContext()
    OperationClient.Profile.server.apply(to: &context)
    #expect(context.collectionDelay == nil)
    #expect(context.earlyRefresh?.servingWindow == .seconds(30))
    #expect(OperationClient.Profile.server.storeLimits?.maxStoreCount == 10_000)
    #expect(OperationClient.Profile.server.storeLimits?.maxIdleAge == .seconds(300))

    let bounded = OperationClient.Profile.server(
      maxStoreCount: 50_000,
      maxByteCount: 256 << 20,
      maxIdleAge: .seconds(60)
    )
    #expect(bounded.storeLimits?.maxStoreCount == 50_000)
    #expect(bounded.storeLimits?.maxByteCount == 256 << 20)
    #expect(bounded.storeLimits?.maxIdleAge == .seconds(60))
  }

  @Test func `A Value That Measures Itself Counts Against The Byte Bound`() async throws {
    let catalog = Catalog(products: Array(repeating: Product(id: 1, name: "A"), count: 10))
    #expect(catalog.estimatedByteCount == 10 * MemoryLayout<Product>.stride)
    #expect(OperationClient.StoreLimits.defaultEstimatedByteCount(of: catalog) == 10 * 24)

    let client = OperationClient(
      profile: .server(maxByteCount: 2 * catalog.estimatedByteCount)
    )
    let stores = (1...3).map { client.store(for: CatalogQuery(id: $0, catalog: catalog)) }
    for store in stores {
      try await store.fetch()
    }
    #expect(client.store(with: stores[0].path) == nil)
    #expect(client.store(with: stores[1].path) != nil)
    #expect(client.store(with: stores[2].path) != nil)
  }

  @Test func `Concurrent Requests For One Key Run The Query Once`() async throws {
    let api = PriceAPI()
    // NB: On a manual clock the price never nears its staleness, so early refresh never starts a
    // second request, however slow the machine.
    let server = PriceServer(api: api, clock: ManualOperationClock())
    let prices = try await withThrowingTaskGroup(of: Price.self) { group in
      for _ in 0..<100 {
        group.addTask { try await server.price(of: "A1") }
      }
      await api.waitForRequests(count: 1)
      api.release()
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(prices == Array(repeating: Price(sku: "A1", cents: 100), count: 100))
    #expect(api.requestCount == 1)

    #expect(try await server.price(of: "A1") == Price(sku: "A1", cents: 100))
    #expect(api.requestCount == 1)
  }

  @Test func `A Stale Price Is Served At Once While One Run Refreshes It`() async throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 0))
    let api = PriceAPI()
    let server = PriceServer(api: api, clock: clock)
    let first = Task { try await server.price(of: "A1") }
    await api.waitForRequests(count: 1)
    api.release()
    #expect(try await first.value.cents == 100)

    clock.advance(by: 61)
    #expect(try await server.price(of: "A1").cents == 100)
    #expect(try await server.price(of: "A1").cents == 100)
    await api.waitForRequests(count: 2)
    #expect(api.requestCount == 2)
    api.release()
  }
}

// MARK: - The article's types

private struct Product: Sendable, Hashable {
  var id: Int
  var name: String
}

private struct Catalog: Sendable, OperationByteCountEstimating {
  var products: [Product]

  var estimatedByteCount: Int {
    self.products.count * MemoryLayout<Product>.stride
  }
}

private struct Price: Sendable, Hashable {
  let sku: String
  let cents: Int
}

/// An upstream price service whose requests wait until the test releases them; each request
/// answers 100 cents more than the one before.
private final class PriceAPI: Sendable {
  private struct State {
    var requestCount = 0
    var waiting = [Int: Gate]()
    var released = 0
  }

  private let state = Lock(State())
  private let requested = Lock([Int: Gate]())

  var requestCount: Int {
    self.state.withLock { $0.requestCount }
  }

  func price(of sku: String) async throws -> Price {
    let (number, gate) = self.state.withLock { state in
      state.requestCount += 1
      let gate = state.waiting[state.requestCount, default: Gate()]
      state.waiting[state.requestCount] = gate
      return (state.requestCount, gate)
    }
    self.requestGate(number).open()
    await gate.wait()
    return Price(sku: sku, cents: 100 * number)
  }

  /// Waits until `count` requests have started.
  func waitForRequests(count: Int) async {
    await self.requestGate(count).wait()
  }

  /// Lets the oldest held request answer.
  func release() {
    let gate = self.state.withLock { state in
      state.released += 1
      let gate = state.waiting[state.released, default: Gate()]
      state.waiting[state.released] = gate
      return gate
    }
    gate.open()
  }

  private func requestGate(_ number: Int) -> Gate {
    self.requested.withLock { gates in
      let gate = gates[number, default: Gate()]
      gates[number] = gate
      return gate
    }
  }
}

private struct PriceQuery: QueryRequest, Hashable {
  let sku: String
  let api: PriceAPI

  static func == (lhs: Self, rhs: Self) -> Bool { lhs.sku == rhs.sku }
  func hash(into hasher: inout Hasher) { hasher.combine(self.sku) }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Price, any Error>
  ) async throws -> Price {
    try await self.api.price(of: self.sku)
  }
}

/// The article's handler, on a server client.
private struct PriceServer: Sendable {
  let api: PriceAPI
  let client: OperationClient

  init(api: PriceAPI, clock: (any OperationClock & Sendable)? = nil) {
    self.api = api
    var context = OperationContext()
    if let clock {
      context.operationClock = clock
    }
    self.client = OperationClient(profile: .server, defaultContext: context)
  }

  func price(of sku: String) async throws -> Price {
    try await self.client.store(
      for: PriceQuery(sku: sku, api: self.api).stale(after: .seconds(60))
    )
    .fetchIfNeeded()
  }
}

private struct CatalogQuery: QueryRequest, Hashable {
  let id: Int
  let catalog: Catalog

  static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id }
  func hash(into hasher: inout Hasher) { hasher.combine(self.id) }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Catalog, any Error>
  ) async throws -> Catalog {
    self.catalog
  }
}
