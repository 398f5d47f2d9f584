import Operation

// MARK: - (26): a server client's memory over many keys

/// One point of ``boundedClientMemory(maxStoreCount:keyCount:pointCount:)``'s curve.
public struct BoundedClientPoint: Sendable {
  /// The distinct keys fetched so far.
  public let keys: Int
  /// The stores the client holds.
  public let stores: Int
  /// The resident set size in bytes.
  public let residentBytes: Int
  /// The heap bytes in use.
  public let heapBytes: Int
}

/// The figures of ``boundedClientMemory(maxStoreCount:keyCount:pointCount:)``.
public struct BoundedClientFigures: Sendable {
  /// The curve, one point after each equal share of the keys.
  public let points: [BoundedClientPoint]
  /// The most stores the client held at any of the checks (one every 1,000 keys for a client
  /// with a store limit, at the points otherwise).
  public let mostStores: Int
}

/// (26) Fetches `keyCount` distinct keys, one after another, through one client made with
/// `OperationClient(profile: .server(maxStoreCount:))` when `maxStoreCount` is given and with
/// `OperationClient(profile: .app)` otherwise, and records its stores and the process's memory
/// `pointCount` times.
public func boundedClientMemory(
  maxStoreCount: Int?,
  keyCount: Int = 1_000_000,
  pointCount: Int = 10
) async throws -> BoundedClientFigures {
  let profile: OperationClient.Profile = maxStoreCount.map { .server(maxStoreCount: $0) } ?? .app
  let client = OperationClient(profile: profile)
  let share = keyCount / pointCount
  let checksEvery = profile.storeLimits?.maxStoreCount == nil ? share : 1_000
  var points = [BoundedClientPoint]()
  var mostStores = 0
  for key in 1...keyCount {
    keep(try await client.store(for: KeyedQuery(id: key)).fetch())
    if key % checksEvery == 0 || key % share == 0 {
      let stores = client.stores(matching: []).count
      mostStores = max(mostStores, stores)
      if key % share == 0 {
        let memory = Memory.snapshot()
        points.append(
          BoundedClientPoint(
            keys: key,
            stores: stores,
            residentBytes: memory.resident,
            heapBytes: memory.heap
          )
        )
      }
    }
  }
  return BoundedClientFigures(points: points, mostStores: mostStores)
}

/// A query per key whose value is a small string, as a service's lookup by id might be.
private struct KeyedQuery: QueryRequest, Hashable {
  let id: Int

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<String, any Error>
  ) async throws -> String {
    "value \(self.id)"
  }
}
