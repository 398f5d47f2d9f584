public import Operation
import OperationTestSupport

// MARK: - (1) and (2): sequential fetches

/// Fetches one store's query over and over, one fetch at a time.
public struct SequentialFetches: Sendable {
  private let client: OperationClient?
  private let fetch: @Sendable () async throws -> Int

  init(client: OperationClient?, fetch: @escaping @Sendable () async throws -> Int) {
    self.client = client
    self.fetch = fetch
  }

  /// (1) A detached store of ``TrivialQuery``.
  public static func plain() -> Self {
    let store = OperationStore.detached(query: TrivialQuery(), initialValue: nil)
    return Self(client: nil) { try await store.fetch() }
  }

  /// (2) ``TrivialQuery`` with `.retry(limit: 3).deduplicated()`, in a store of a client with the
  /// default modifiers (no network or activity observer).
  public static func throughDefaultModifiers() -> Self {
    let client = makeDefaultClient()
    let store = client.store(for: TrivialQuery().retry(limit: 3).deduplicated())
    return Self(client: client) { try await store.fetch() }
  }

  /// (2′) ``TrivialQuery`` with no modifiers of its own, in a store of a client with the
  /// default modifiers (no network or activity observer): the creator adds both its `retry` and
  /// its `deduplicated()`.
  public static func throughDefaultModifiersAlone() -> Self {
    let client = makeDefaultClient()
    let store = client.store(for: TrivialQuery())
    return Self(client: client) { try await store.fetch() }
  }

  /// Fetches `count` times, one after the other.
  public func run(count: Int) async throws {
    for _ in 0..<count {
      keep(try await self.fetch())
    }
  }
}

/// What (1) cannot cost less than, built from the concurrency runtime alone: a task named as a
/// store's run is, awaited under a cancellation handler, that binds a task local (as a run makes
/// itself the current run) and calls an actor once (as a run calls its operation on the store's
/// actor).
public struct FetchFloor: Sendable {
  private let actor = FloorActor()

  /// Creates the scenario.
  public init() {}

  /// Makes `count` such tasks, one after the other.
  public func run(count: Int) async {
    for _ in 0..<count {
      let actor = self.actor
      let task = Task(name: "OperationStore<QueryState<Int, Error>> Task") {
        await FloorRun.$current.withValue(FloorRun(enclosing: FloorRun.current)) {
          await actor.value()
        }
      }
      keep(
        await withTaskCancellationHandler {
          await task.value
        } onCancel: {
        }
      )
    }
  }
}

private actor FloorActor {
  func value() -> Int { 1 }
}

private final class FloorRun: Sendable {
  @TaskLocal static var current: FloorRun?

  let enclosing: FloorRun?

  init(enclosing: FloorRun?) {
    self.enclosing = enclosing
  }
}

// MARK: - (3): concurrent deduplicated fetches

/// The figures of ``concurrentDeduplicatedFetches(count:bodyDuration:)``.
public struct ConcurrentFetchFigures: Sendable {
  /// From the moment the calls are let go to the last fetch's return.
  public let wallNanoseconds: Int
  /// How many times the query's body ran.
  public let bodyRuns: Int
}

/// (3) Makes `count` calls of `fetch()` on one deduplicated store at the same moment, and waits
/// for them.
///
/// Every call runs in a task of its own. The tasks line up at a gate, which opens once they all
/// wait there, so that the calls are made together; the wall time runs from the opening of the
/// gate to the last call's return.
public func concurrentDeduplicatedFetches(
  count: Int = 1_000,
  bodyDuration: Duration = .milliseconds(1)
) async throws -> ConcurrentFetchFigures {
  let counter = RunCounter()
  let store = OperationStore.detached(
    query: SlowQuery(counter: counter, duration: bodyDuration).deduplicated(),
    initialValue: nil
  )
  let arrivals = RunCounter()
  let allArrived = Gate()
  let start = Gate()
  return try await withThrowingTaskGroup(of: Int.self) { group in
    for _ in 0..<count {
      group.addTask {
        arrivals.increment()
        if arrivals.count == count {
          allArrived.open()
        }
        await start.wait()
        return try await store.fetch()
      }
    }
    await allArrived.wait()
    let startInstant = ContinuousClock.now
    start.open()
    for try await value in group {
      keep(value)
    }
    return ConcurrentFetchFigures(
      wallNanoseconds: nanoseconds(since: startInstant),
      bodyRuns: counter.count
    )
  }
}

// MARK: - (4): store creation and lookup

/// The figures of ``storeCreation(count:batch:)``.
public struct StoreCreationFigures: Sendable {
  /// The nanoseconds each batch of creations took, in order.
  public let batchNanoseconds: [Int]
  /// The number of stores per batch.
  public let batch: Int
  /// The nanoseconds per `store(for:)` of an existing store.
  public let lookupNanoseconds: Double
  /// The resident memory the stores added, per store.
  public let residentBytesPerStore: Double
  /// The heap bytes the stores added, per store.
  public let heapBytesPerStore: Double

  /// The nanoseconds per creation in the first batch.
  public var firstBatchNanosecondsPerStore: Double {
    Double(self.batchNanoseconds.first ?? 0) / Double(self.batch)
  }

  /// The nanoseconds per creation in the last batch.
  public var lastBatchNanosecondsPerStore: Double {
    Double(self.batchNanoseconds.last ?? 0) / Double(self.batch)
  }
}

/// (4) Asks a client with the default modifiers for `count` distinct ``NumberQuery`` stores, timing
/// each batch of `batch` creations, then asks for each of them again.
public func storeCreation(count: Int = 100_000, batch: Int = 10_000) -> StoreCreationFigures {
  let queries = (0..<count).map { NumberQuery(id: $0) }
  let client = makeDefaultClient()
  let before = Memory.snapshot()
  var batchNanoseconds = [Int]()
  for batchStart in stride(from: 0, to: count, by: batch) {
    let start = ContinuousClock.now
    for index in batchStart..<min(batchStart + batch, count) {
      keep(client.store(for: queries[index]))
    }
    batchNanoseconds.append(nanoseconds(since: start))
  }
  let after = Memory.snapshot()
  let start = ContinuousClock.now
  for query in queries {
    keep(client.store(for: query))
  }
  let lookup = nanoseconds(since: start)
  withExtendedLifetime(client) {}
  return StoreCreationFigures(
    batchNanoseconds: batchNanoseconds,
    batch: batch,
    lookupNanoseconds: Double(lookup) / Double(count),
    residentBytesPerStore: Double(after.resident - before.resident) / Double(count),
    heapBytesPerStore: Double(after.heap - before.heap) / Double(count)
  )
}

// MARK: - (5): stores(matching:)

/// A client full of ``UserQuery`` stores, for timing `stores(matching:)`.
public final class MatchingFixture: Sendable {
  /// The client.
  public let client: OperationClient
  /// The prefixes `["user", n]`, one per group.
  let prefixes: [OperationPath]
  /// How many stores each prefix matches.
  public let matchesPerPrefix: Int

  /// Creates `storeCount` stores with paths `["user", i % groups, i]`.
  public init(storeCount: Int, groups: Int) {
    self.client = makeDefaultClient()
    for id in 0..<storeCount {
      keep(self.client.store(for: UserQuery(id: id, groups: groups)))
    }
    self.prefixes = (0..<groups).map { ["user", $0] }
    self.matchesPerPrefix = storeCount / groups
  }

  /// Calls `stores(matching: ["user", n])` `count` times, cycling through the groups; returns the
  /// total number of stores matched.
  @discardableResult
  public func run(count: Int) -> Int {
    var matched = 0
    for call in 0..<count {
      matched += self.client.stores(matching: self.prefixes[call % self.prefixes.count]).count
    }
    return matched
  }
}

// MARK: - (6): subscribers

/// One store with many subscribers whose handlers do nothing.
public final class SubscriberFanOut: Sendable {
  private let store: OperationStore<QueryState<Int, any Error>>
  private let subscriptions: [OperationSubscription]
  /// The number of subscribers.
  public let subscriberCount: Int

  /// Creates the store and subscribes `subscribers` handlers.
  public init(subscribers: Int = 1_000) {
    let store = OperationStore.detached(query: TrivialQuery(), initialValue: nil)
    self.store = store
    self.subscriptions = (0..<subscribers).map { _ in
      store.subscribe(with: QueryEventHandler(onStateChanged: { state, _ in keep(state) }))
    }
    self.subscriberCount = subscribers
  }

  /// Sets the store's value `count` times; each change reaches every subscriber.
  public func run(count: Int) {
    for value in 0..<count {
      self.store.currentValue = value
    }
  }
}

// MARK: - (7): mutations

/// The figures of ``mutations(count:)``.
public struct MutationFigures: Sendable {
  /// The nanoseconds per `mutate(with:)`.
  public let nanosecondsPerCall: Double
  /// The resident memory the store gained over the calls.
  public let residentBytesAdded: Int
  /// The heap bytes the store gained over the calls.
  public let heapBytesAdded: Int
  /// The number of attempts in the store's history afterwards.
  public let historyCount: Int
}

/// (7) Calls `mutate(with:)` `count` times on one detached store of ``IncrementMutation``.
public func mutations(count: Int = 100_000) async throws -> MutationFigures {
  let store = OperationStore.detached(mutation: IncrementMutation())
  let before = Memory.snapshot()
  let start = ContinuousClock.now
  for argument in 0..<count {
    keep(try await store.mutate(with: argument))
  }
  let elapsed = nanoseconds(since: start)
  let after = Memory.snapshot()
  return MutationFigures(
    nanosecondsPerCall: Double(elapsed) / Double(count),
    residentBytesAdded: after.resident - before.resident,
    heapBytesAdded: after.heap - before.heap,
    historyCount: store.history.count
  )
}

// MARK: - (8): pages

/// The figures of ``nextPages(count:window:)``.
public struct PageFigures: Sendable {
  /// The nanoseconds the first `window` calls took.
  public let firstWindowNanoseconds: Int
  /// The nanoseconds the last `window` calls took.
  public let lastWindowNanoseconds: Int
  /// The number of pages in the store afterwards.
  public let pageCount: Int

  /// How many times longer the last window took than the first.
  public var ratio: Double {
    Double(self.lastWindowNanoseconds) / Double(max(self.firstWindowNanoseconds, 1))
  }
}

/// (8) Calls `fetchNextPage()` `count` times on one detached store of ``NumberFeed``.
public func nextPages(count: Int = 1_000, window: Int = 100) async throws -> PageFigures {
  let store = OperationStore.detached(query: NumberFeed())
  var first = 0
  var last = 0
  var windowStart = ContinuousClock.now
  for call in 0..<count {
    if call % window == 0 {
      windowStart = .now
    }
    keep(try await store.fetchNextPage())
    if call == window - 1 {
      first = nanoseconds(since: windowStart)
    }
    if call == count - 1 {
      last = nanoseconds(since: windowStart)
    }
  }
  return PageFigures(
    firstWindowNanoseconds: first,
    lastWindowNanoseconds: last,
    pageCount: store.currentValue.count
  )
}
