import IdentifiedCollections
import OperationCore
import OperationTestSupport
import Testing

@Suite struct `Deduplication tests` {
  @Test func `Concurrent Fetches Run The Query Once And Share Its Value`() async throws {
    let gate = Gate()
    let query = CountingGatedQuery(gate: gate)
    let store = OperationStore.detached(query: query.deduplicated(), initialValue: nil)
    let first = store.fetchTask()
    let second = store.fetchTask()
    async let firstValue = first.runIfNeeded()
    async let secondValue = second.runIfNeeded()
    await query.counter.waitForCalls(1)
    gate.open()
    #expect(try await firstValue == 1)
    #expect(try await secondValue == 1)
    #expect(query.counter.calls == 1)
  }

  @Test func `A Cancelled Waiter Stops Waiting While The Shared Run Goes On`() async throws {
    let gate = Gate()
    let query = CountingGatedQuery(gate: gate)
    let store = OperationStore.detached(query: query.deduplicated(), initialValue: nil)
    let first = store.fetchTask()
    let second = store.fetchTask()
    let firstRun = Task { try await first.runIfNeeded() }
    await query.counter.waitForCalls(1)
    let secondRun = Task { try await second.runIfNeeded() }
    secondRun.cancel()
    await #expect(throws: CancellationError.self) { try await secondRun.value }
    gate.open()
    #expect(try await firstRun.value == 1)
    #expect(query.counter.calls == 1)
  }

  @Test func `Runs After The Shared Run Finished Start A New Run`() async throws {
    let gate = Gate()
    gate.open()
    let query = CountingGatedQuery(gate: gate)
    let store = OperationStore.detached(query: query.deduplicated(), initialValue: nil)
    try await store.fetch()
    try await store.fetch()
    #expect(query.counter.calls == 2)
  }

  @Test func `A Caller Cancelled Before It Joins Throws Without Starting A Run`() async throws {
    let gate = Gate()
    gate.open()
    let query = CountingGatedQuery(gate: gate)
    let store = OperationStore.detached(query: query.deduplicated(), initialValue: nil)
    let cancelled = store.fetchTask()
    cancelled.cancel()
    await #expect(throws: CancellationError.self) { try await cancelled.runIfNeeded() }
    #expect(query.counter.calls == 0)
    #expect(try await store.fetch() == 1)
  }

  @Test(.timeLimit(.minutes(1)))
  func `A Caller After The Last One Was Cancelled Starts A New Run`() async throws {
    let gate = Gate()
    let query = CancellableGatedQuery(gate: gate)
    let store = OperationStore.detached(query: query.deduplicated(), initialValue: nil)
    let joins = AsyncCounter()
    store.context.deduplicationJoinObserver = { joins.increment() }

    let cancelled = Task { try await store.fetch() }
    await query.counter.waitForCalls(1)
    cancelled.cancel()
    await #expect(throws: CancellationError.self) { try await cancelled.value }

    let later = Task { try await store.fetch() }
    await joins.wait(for: 2)
    gate.open()

    #expect(try await later.value == 2)
    #expect(query.counter.calls == 2)
  }

  // MARK: - Paginated requests

  /// A deduplicated paginated store whose runs count their joins, and its request.
  private func paginatedStore(
    _ values: [Int: String]
  ) -> (TestPaginated, OperationStore<PaginatedState<Int, String, any Error>>, AsyncCounter) {
    let query = TestPaginated(values)
    let store = OperationStore.detached(query: query.deduplicated())
    let joins = AsyncCounter()
    store.context.deduplicationJoinObserver = { joins.increment() }
    return (query, store, joins)
  }

  @Test func `Concurrent Fetches Of The Initial Page Fetch It Once`() async throws {
    let (query, store, joins) = self.paginatedStore([0: "a"])
    let started = Gate()
    let release = Gate()
    query.hold(started: started, release: release)

    let first = store.fetchPreviousPageTask()
    let second = store.fetchPreviousPageTask()
    async let firstPage = first.runIfNeeded()
    async let secondPage = second.runIfNeeded()
    await joins.wait(for: 2)
    release.open()

    #expect(try await firstPage == Page(id: 0, value: "a"))
    #expect(try await secondPage == Page(id: 0, value: "a"))
    #expect(query.fetchedPageIds == [0])
  }

  @Test func `Concurrent Fetches Of The Next Page Fetch It Once`() async throws {
    let (query, store, joins) = self.paginatedStore([0: "a", 1: "b"])
    try await store.fetchNextPage()
    let started = Gate()
    let release = Gate()
    query.hold(started: started, release: release)

    let first = store.fetchNextPageTask()
    let second = store.fetchNextPageTask()
    async let firstPage = first.runIfNeeded()
    async let secondPage = second.runIfNeeded()
    await joins.wait(for: 3)
    release.open()

    #expect(try await firstPage == Page(id: 1, value: "b"))
    #expect(try await secondPage == Page(id: 1, value: "b"))
    #expect(query.fetchedPageIds == [0, 1])
  }

  @Test func `Concurrent Fetches Of The Previous Page Fetch It Once`() async throws {
    let (query, store, joins) = self.paginatedStore([0: "a", -1: "b"])
    try await store.fetchPreviousPage()
    let started = Gate()
    let release = Gate()
    query.hold(started: started, release: release)

    let first = store.fetchPreviousPageTask()
    let second = store.fetchPreviousPageTask()
    async let firstPage = first.runIfNeeded()
    async let secondPage = second.runIfNeeded()
    await joins.wait(for: 3)
    release.open()

    #expect(try await firstPage == Page(id: -1, value: "b"))
    #expect(try await secondPage == Page(id: -1, value: "b"))
    #expect(query.fetchedPageIds == [0, -1])
  }

  @Test func `Concurrent Refetches Of All Pages Fetch Each Page Once`() async throws {
    let (query, store, joins) = self.paginatedStore([0: "a", 1: "b"])
    try await store.fetchNextPage()
    try await store.fetchNextPage()
    let started = Gate()
    let release = Gate()
    query.hold(started: started, release: release)

    let first = store.refetchAllPagesTask()
    let second = store.refetchAllPagesTask()
    async let firstPages = first.runIfNeeded()
    async let secondPages = second.runIfNeeded()
    await joins.wait(for: 4)
    release.open()

    let expected: Pages<Int, String> = [Page(id: 0, value: "a"), Page(id: 1, value: "b")]
    #expect(try await firstPages == expected)
    #expect(try await secondPages == expected)
    #expect(query.fetchedPageIds == [0, 1, 0, 1])
  }

  @Test func `Concurrent Fetches Of The Next And Previous Pages Both Fetch`() async throws {
    let (query, store, joins) = self.paginatedStore([0: "a", 1: "b", -1: "c"])
    try await store.fetchNextPage()
    let started = Gate()
    let release = Gate()
    query.hold(started: started, release: release)

    let next = store.fetchNextPageTask()
    let previous = store.fetchPreviousPageTask()
    async let nextPage = next.runIfNeeded()
    async let previousPage = previous.runIfNeeded()
    await joins.wait(for: 3)
    release.open()

    #expect(try await nextPage == Page(id: 1, value: "b"))
    #expect(try await previousPage == Page(id: -1, value: "c"))
    #expect(Set(query.fetchedPageIds) == [0, 1, -1])
  }
}

private final class DedupCallCounter: Sendable {
  private let state = Lock((calls: 0, waiters: [(Int, CheckedContinuation<Void, Never>)]()))

  var calls: Int { self.state.withLock { $0.calls } }

  func increment() -> Int {
    let (calls, ready) = self.state.withLock { state in
      state.calls += 1
      let ready = state.waiters.filter { $0.0 <= state.calls }.map(\.1)
      state.waiters.removeAll { $0.0 <= state.calls }
      return (state.calls, ready)
    }
    for continuation in ready {
      continuation.resume()
    }
    return calls
  }

  func waitForCalls(_ count: Int) async {
    await withCheckedContinuation { continuation in
      let isReady = self.state.withLock { state in
        if state.calls >= count { return true }
        state.waiters.append((count, continuation))
        return false
      }
      if isReady {
        continuation.resume()
      }
    }
  }
}

private struct CountingGatedQuery: QueryRequest, Sendable {
  let gate: Gate
  let counter = DedupCallCounter()

  var path: OperationPath { ["counting-gated"] }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    let calls = self.counter.increment()
    await self.gate.wait()
    return calls
  }
}

/// A query that counts its runs, waits for a gate, then throws `CancellationError` when its task
/// was cancelled meanwhile.
private struct CancellableGatedQuery: QueryRequest, Sendable {
  let gate: Gate
  let counter = DedupCallCounter()

  var path: OperationPath { ["cancellable-gated"] }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    let calls = self.counter.increment()
    await self.gate.wait()
    try Task.checkCancellation()
    return calls
  }
}
