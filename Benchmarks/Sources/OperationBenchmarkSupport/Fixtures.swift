public import Operation
import Synchronization

/// A query that returns at once: the cost of a fetch is the library's alone.
public struct TrivialQuery: QueryRequest, Hashable, Sendable {
  /// Creates the query.
  public init() {}

  /// Returns 1.
  public func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    1
  }
}

/// A query identified by a number, whose path is the default one-element path of a `Hashable`
/// request.
public struct NumberQuery: QueryRequest, Hashable, Sendable {
  /// The number.
  public let id: Int

  /// Creates the query for a number.
  public init(id: Int) {
    self.id = id
  }

  /// Returns the number.
  public func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.id
  }
}

/// A query with the path `["user", id % groups, id]`, so that `["user", n]` matches a group.
public struct UserQuery: QueryRequest, Sendable {
  /// The user's id.
  public let id: Int
  /// The number of groups the ids are spread over.
  public let groups: Int

  /// Creates the query for a user.
  public init(id: Int, groups: Int) {
    self.id = id
    self.groups = groups
  }

  /// `["user", id % groups, id]`.
  public var path: OperationPath {
    ["user", self.id % self.groups, self.id]
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

/// Counts how many times a body ran.
public final class RunCounter: Sendable {
  private let value = Atomic(0)

  /// Creates a counter at zero.
  public init() {}

  /// The number of runs so far.
  public var count: Int {
    self.value.load(ordering: .acquiring)
  }

  /// Counts one run.
  public func increment() {
    self.value.add(1, ordering: .acquiringAndReleasing)
  }
}

/// A query whose body takes a while (it sleeps), and counts how often it runs.
public struct SlowQuery: QueryRequest, Sendable {
  /// Counts the runs of the body.
  public let counter: RunCounter
  /// How long the body takes.
  public let duration: Duration

  /// Creates the query.
  public init(counter: RunCounter, duration: Duration) {
    self.counter = counter
    self.duration = duration
  }

  /// The one path of the query.
  public var path: OperationPath {
    ["slow"]
  }

  /// Counts the run, sleeps, and returns 1.
  public func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.counter.increment()
    try await Task.sleep(for: self.duration)
    return 1
  }
}

/// A mutation that returns its argument plus one.
public struct IncrementMutation: MutationRequest, Hashable, Sendable {
  /// Creates the mutation.
  public init() {}

  /// Returns `arguments + 1`.
  public func mutate(
    isolation: isolated (any Actor)?,
    with arguments: Int,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    arguments + 1
  }
}

/// An endless feed whose page `n` holds the value `n`.
public struct NumberFeed: PaginatedRequest, Hashable, Sendable {
  /// Creates the feed.
  public init() {}

  /// The first page is page 0.
  public var initialPageId: Int {
    0
  }

  /// The page after page `n` is page `n + 1`; there is always one.
  public func pageId(
    after page: Page<Int, Int>,
    using paging: Paging<Int, Int>,
    in context: OperationContext
  ) -> Int? {
    page.id + 1
  }

  /// Returns the page's id as its value.
  public func fetchPage(
    isolation: isolated (any Actor)?,
    using paging: Paging<Int, Int>,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    paging.pageId
  }
}

/// A client with the library's default modifiers, no network or activity observer, and a cache
/// that never evicts, so that runs are repeatable.
public func makeDefaultClient() -> OperationClient {
  OperationClient(
    storeCache: OperationClient.DefaultStoreCache(memoryPressureSource: nil),
    storeCreator: .default(networkObserver: nil, activityObserver: nil)
  )
}

/// Keeps the optimizer from removing the computation of a value.
@inline(never)
public func keep<T>(_ value: T) {
  withExtendedLifetime(value) {}
}
