public import Operation
import Synchronization

// MARK: - (29): lookups through a batch loader, against one resolver call each

/// How the lookups of ``BatchedLookups`` reach their resolver.
public enum BatchForm: String, Sendable {
  /// Through one `BatchLoader`: one resolver call per round of 100 ids.
  case batch
  /// Each store calls the resolver itself, with its one id.
  case separate = "batch-separate"
}

/// The resolver of the batch scenarios: every id is found, and its value is the id.
@inline(never)
public func resolveNumbers(_ ids: [Int]) async throws -> [Int: Int] {
  var values = [Int: Int](minimumCapacity: ids.count)
  for id in ids {
    values[id] = id
  }
  return values
}

/// A query of one id that loads it through a shared `BatchLoader`.
public struct BatchedNumberQuery: QueryRequest, Sendable {
  let id: Int
  let loader: BatchLoader<Int, Int>

  /// The query's path, `["batched", id]`.
  public var path: OperationPath {
    ["batched", self.id]
  }

  /// Loads the id through the loader.
  public func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    try await self.loader.load(self.id, in: context)
  }
}

/// A query of one id that calls the resolver itself, with that id alone.
public struct SeparateNumberQuery: QueryRequest, Hashable, Sendable {
  let id: Int

  /// Calls ``resolveNumbers(_:)`` with the id.
  public func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    guard let value = try await resolveNumbers([self.id])[self.id] else {
      throw MissingNumber(id: self.id)
    }
    return value
  }
}

/// The resolver left an id out.
public struct MissingNumber: Error {
  let id: Int
}

/// A delayer that waits until the next ``release()``: the window of the batch scenario's loader.
///
/// A round's 100 distinct ids fill a batch (`maxBatchSize` 100), which the loader sends at once;
/// the window's timer, started by the round's first lookup, then waits here until the round is
/// over and finds nothing left to send. A `.tick` window could send a batch before every lookup
/// of the round had arrived, and a real timer would sleep in the measured time.
final class WindowRelease: OperationDelayer, Sendable {
  private let waiters = Mutex([CheckedContinuation<Void, Never>]())

  func delay(for duration: OperationDuration) async throws {
    await withCheckedContinuation { continuation in
      self.waiters.withLock { $0.append(continuation) }
    }
  }

  /// Ends every wait so far.
  func release() {
    let waiters = self.waiters.withLock { waiters in
      defer { waiters.removeAll() }
      return waiters
    }
    for waiter in waiters {
      waiter.resume()
    }
  }
}

/// (29) 100 detached stores, one per id, fetched concurrently in rounds: their queries load
/// their id through one `BatchLoader` with ``resolveNumbers(_:)`` as its resolver (one resolver
/// call per round), or each call the resolver with its own id.
public final class BatchedLookups: Sendable {
  /// The stores of a round.
  public static let storeCount = 100

  /// How the lookups reach their resolver.
  public let form: BatchForm
  private let fetches: [@Sendable () async throws -> Int]
  private let loader: BatchLoader<Int, Int>?
  private let window: WindowRelease

  /// Creates the stores.
  public init(_ form: BatchForm) {
    self.form = form
    let window = WindowRelease()
    self.window = window
    switch form {
    case .batch:
      let loader = BatchLoader<Int, Int>(
        name: "numbers",
        window: .duration(.seconds(1)),
        maxBatchSize: Self.storeCount,
        values: resolveNumbers
      )
      self.loader = loader
      self.fetches = (0..<Self.storeCount).map { id in
        let store = OperationStore.detached(
          query: BatchedNumberQuery(id: id, loader: loader).delayer(window),
          initialValue: nil
        )
        return { try await store.fetch() }
      }
    case .separate:
      self.loader = nil
      self.fetches = (0..<Self.storeCount).map { id in
        let store = OperationStore.detached(query: SeparateNumberQuery(id: id), initialValue: nil)
        return { try await store.fetch() }
      }
    }
  }

  /// The loader's calls of its resolver and lookups so far; `nil` for ``BatchForm/separate``.
  public var loaderStatistics: (batches: Int, ids: Int, lookups: Int)? {
    self.loader.map { ($0.statistics.batches, $0.statistics.ids, $0.statistics.lookups) }
  }

  /// Fetches every store once per round, concurrently within a round: `count` lookups in all,
  /// rounded up to whole rounds.
  ///
  /// - Returns: The lookups made.
  @discardableResult
  public func run(count: Int) async throws -> Int {
    let rounds = (count + Self.storeCount - 1) / Self.storeCount
    for _ in 0..<rounds {
      try await withThrowingTaskGroup(of: Int.self) { group in
        for fetch in self.fetches {
          group.addTask { try await fetch() }
        }
        for try await value in group {
          keep(value)
        }
      }
      self.window.release()
    }
    return rounds * Self.storeCount
  }
}
