import IdentifiedCollections
import OperationCore
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `Deduplication tests` {
  /// With two deduplications, the inner one sits inside the outer one's shared run, behind a
  /// retry, and reports that run's start too.
  @Test(arguments: [1, 2])
  func `Concurrent Fetches Run The Query Once And Share Its Value`(
    deduplications: Int
  ) async throws {
    let gate = Gate()
    let query = CountingGatedQuery(gate: gate)
    let store =
      deduplications == 1
      ? OperationStore.detached(query: query.deduplicated(), initialValue: nil)
      : OperationStore.detached(
        query: query.deduplicated().retry(limit: 0).deduplicated(),
        initialValue: nil
      )
    let joins = JoinRecorder()
    store.context.deduplicationJoinObserver = joins.record
    let first = store.fetchTask()
    let second = store.fetchTask()
    async let firstValue = first.runIfNeeded()
    async let secondValue = second.runIfNeeded()
    // NB: Both callers are registered with the shared run before it may finish; opening the gate
    // earlier would let a late caller start a second run.
    await joins.wait(for: deduplications + 1)
    gate.open()
    #expect(try await firstValue == 1)
    #expect(try await secondValue == 1)
    #expect(query.counter.calls == 1)
    if deduplications == 1 {
      #expect(joins.joins == [.started, .joined])
    } else {
      #expect(joins.joins.filter { $0 == .started }.count == 2)
      #expect(joins.joins.filter { $0 == .joined }.count == 1)
    }
  }

  @Test func `A Cancelled Waiter Stops Waiting While The Shared Run Goes On`() async throws {
    let gate = Gate()
    let query = CancellableGatedQuery(gate: gate)
    let store = OperationStore.detached(query: query.deduplicated(), initialValue: nil)
    let joins = JoinRecorder()
    store.context.deduplicationJoinObserver = joins.record
    let firstRun = Task { try await store.fetch() }
    await joins.wait(for: 1)
    let secondRun = Task { try await store.fetch() }
    // NB: The second caller is cancelled only once it waits for the shared run, so this is the
    // cancellation of a waiter, not of a caller that never joined.
    await joins.wait(for: 2)
    #expect(joins.joins == [.started, .joined])
    secondRun.cancel()
    await #expect(throws: CancellationError.self) { try await secondRun.value }
    gate.open()
    // NB: The query throws `CancellationError` if its task was cancelled.
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

  @Test func `A Caller Cancelled Before It Joins Is Answered By Deduplication`() async throws {
    let query = CountingGatedQuery(gate: Gate())
    let joins = JoinRecorder()
    var context = OperationContext()
    context.deduplicationJoinObserver = joins.record
    let runner = OperationRunner(operation: query.deduplicated(), initialContext: context)
    let cancelled = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await runner.run()
    }
    await #expect(throws: CancellationError.self) { try await cancelled.value }
    #expect(joins.joins == [.cancelledBeforeJoining])
    #expect(query.counter.calls == 0)
  }

  @Test(.timeLimit(.minutes(1)))
  func `A Caller After The Last One Was Cancelled Starts A New Run`() async throws {
    let gate = Gate()
    let query = CancellableGatedQuery(gate: gate)
    let store = OperationStore.detached(query: query.deduplicated(), initialValue: nil)
    let joins = JoinRecorder()
    store.context.deduplicationJoinObserver = joins.record

    let cancelled = Task { try await store.fetch() }
    await joins.wait(for: 1)
    cancelled.cancel()
    await #expect(throws: CancellationError.self) { try await cancelled.value }

    let later = Task { try await store.fetch() }
    await joins.wait(for: 2)
    #expect(joins.joins == [.started, .started])
    gate.open()

    #expect(try await later.value == 2)
    #expect(query.counter.calls == 2)
  }

  @Test(.timeLimit(.minutes(isRunningUnderThreadSanitizer ? 5 : 1)))
  func `Cancelling Twenty Thousand Callers Of One Run Releases Each And Then Cancels The Run`()
    async throws
  {
    // NB: Each caller's leaving used to cost time in proportion to the callers still waiting, in
    // the record of runs and in the store's lists of runs in flight: 20,000 callers took minutes
    // in a debug build, which the time limit catches. The figures are in Benchmarks/README.md.
    // Under the thread sanitizer, 2,000 callers check the same rules; the limit there is
    // looser, since the sanitizer's run starts every test at once on two cores, and the test's
    // clock runs while the others take them (it once took 95 s of a loaded machine).
    let count = isRunningUnderThreadSanitizer ? 2_000 : 20_000
    let query = UntilCancelledQuery()
    let store = OperationStore.detached(query: query.deduplicated(), initialValue: nil)
    let joins = JoinRecorder()
    store.context.deduplicationJoinObserver = joins.record
    let callers = (0..<count).map { _ in
      Task { () -> Bool in
        do {
          _ = try await store.fetch()
          return false
        } catch {
          return error is CancellationError
        }
      }
    }
    await joins.wait(for: count)
    #expect(store.runsInFlightCount == count)
    #expect(store.activeTasks.count == count)
    #expect(!query.ended.isOpen)
    for caller in callers {
      caller.cancel()
    }
    var cancelledCallers = 0
    for caller in callers where await caller.value {
      cancelledCallers += 1
    }
    #expect(cancelledCallers == count)
    await query.ended.wait()
    #expect(query.counter.calls == 1)
    #expect(store.runsInFlightCount == 0)
    #expect(!store.isLoading)
  }

  @Test func `A Cancelled Caller Keeps Waiting When Its Failure Cannot Hold Cancellation`()
    async throws
  {
    let gate = Gate()
    let joins = JoinRecorder()
    var context = OperationContext()
    context.deduplicationJoinObserver = joins.record
    let runner = OperationRunner(
      operation: TypedGatedOperation(gate: gate).deduplicated(),
      initialContext: context
    )
    let first = Task { try await runner.run() }
    await joins.wait(for: 1)
    let second = Task { try await runner.run() }
    await joins.wait(for: 2)
    second.cancel()
    first.cancel()
    gate.open()
    #expect(try await first.value == 1)
    #expect(try await second.value == 1)
  }

  @Test(arguments: [Result<Int?, TestError>.success(nil), .failure(TestError(message: "Shared"))])
  func `Every Caller Of A Shared Run Gets Its Result As The Operation Returned It`(
    result: Result<Int?, TestError>
  ) async throws {
    let gate = Gate()
    let joins = JoinRecorder()
    var context = OperationContext()
    context.deduplicationJoinObserver = joins.record
    let runner = OperationRunner(
      operation: GatedResultOperation(gate: gate, result: result).deduplicated(),
      initialContext: context
    )
    let outcome: @Sendable () async -> Result<Int?, TestError> = {
      do throws(TestError) {
        return .success(try await runner.run())
      } catch {
        return .failure(error)
      }
    }
    let first = Task { await outcome() }
    await joins.wait(for: 1)
    let second = Task { await outcome() }
    await joins.wait(for: 2)
    gate.open()
    #expect(await first.value == result)
    #expect(await second.value == result)
    #expect(joins.joins == [.started, .joined])
  }

  // MARK: - What the shared run keeps

  @Test func `The Duplicate Predicate Runs With No Library Lock Held`() async throws {
    let gate = Gate()
    let query = CountingGatedQuery(gate: gate)
    let locksHeld = ValueRecorder<Bool>()
    let joins = JoinRecorder()
    var context = OperationContext()
    context.deduplicationJoinObserver = joins.record
    // NB: The predicate could call back into the store (a deduplicated store's own lock is not
    // reentrant), so it must find the record of runs unlocked.
    let runner = OperationRunner(
      operation: query.deduplicated { _, other in
        locksHeld.record(other.isDeduplicationLocked)
        return true
      },
      initialContext: context
    )
    let first = Task { try await runner.run() }
    await joins.wait(for: 1)
    let second = Task { try await runner.run() }
    await joins.wait(for: 2)
    gate.open()
    #expect(try await first.value == 1)
    #expect(try await second.value == 1)
    #expect(locksHeld.values == [false])
  }

  @Test func `The Shared Run Is A Task With The Starting Caller's Configuration`() async throws {
    var context = OperationContext()
    context.operationTaskConfiguration.name = "Shared Fetch"
    let runner = OperationRunner(operation: TaskNameQuery().deduplicated(), initialContext: context)
    #expect(try await runner.run() == "Shared Fetch")
  }

  @Test(.enabled(if: hasImmediateTasks, "A shared run starts at once only with Task.immediate"))
  func `A Shared Run Starts On Its Caller's Thread Before The Caller Waits For It`()
    async throws
  {
    let events = Lock([String]())
    let query = LoggingQuery(events: events)
    let store = OperationStore.detached(query: query.deduplicated(), initialValue: nil)
    store.context.deduplicationJoinObserver = { join in events.withLock { $0.append("\(join)") } }
    #expect(try await store.fetch() == 1)
    #expect(events.withLock { $0 } == ["fetch", "started"])
  }

  @Test func `A Non-Sendable Operation Runs On The Actor It Is Given`() async throws {
    let actor = RunActor()
    let runner = OperationRunner(operation: NonSendableQuery(expected: actor).deduplicated())
    #expect(try await runner.run(isolation: actor) == 1)
  }

  // MARK: - A deduplication inside another

  @Test func `A Deduplication Inside Another Runs In A Task With Its Own Configuration`()
    async throws
  {
    let query = TaskNameQuery().deduplicated().modifier(RenamingModifier(name: "Inner"))
      .deduplicated()
    var context = OperationContext()
    context.operationTaskConfiguration.name = "Outer"
    let runner = OperationRunner(operation: query, initialContext: context)
    #expect(try await runner.run() == "Inner")
  }

  // MARK: - Paginated requests

  /// A deduplicated paginated store whose runs count their joins, and its request.
  private func paginatedStore(
    _ values: [Int: String]
  ) -> (TestPaginated, OperationStore<PaginatedState<Int, String, any Error>>, JoinRecorder) {
    let query = TestPaginated(values)
    let store = OperationStore.detached(query: query.deduplicated())
    let joins = JoinRecorder()
    store.context.deduplicationJoinObserver = joins.record
    return (query, store, joins)
  }

  /// Two concurrent fetches of one page of a deduplicated paginated store.
  enum PageFetch: CaseIterable, Sendable {
    case initial, next, previous

    var values: [Int: String] {
      switch self {
      case .initial: [0: "a"]
      case .next: [0: "a", 1: "b"]
      case .previous: [0: "a", -1: "b"]
      }
    }

    /// The page both fetches want, and the pages the request fetched in all.
    var expected: (page: Page<Int, String>, fetchedPageIds: [Int]) {
      switch self {
      case .initial: (Page(id: 0, value: "a"), [0])
      case .next: (Page(id: 1, value: "b"), [0, 1])
      case .previous: (Page(id: -1, value: "b"), [0, -1])
      }
    }

    /// Fetches the initial page first, unless the initial page is the one to fetch.
    func prepare(_ store: OperationStore<PaginatedState<Int, String, any Error>>) async throws {
      if self != .initial {
        try await store.fetchNextPage()
      }
    }

    func task(
      _ store: OperationStore<PaginatedState<Int, String, any Error>>
    ) -> OperationTask<Page<Int, String>?, any Error> {
      self == .next ? store.fetchNextPageTask() : store.fetchPreviousPageTask()
    }
  }

  @Test(arguments: PageFetch.allCases)
  func `Concurrent Fetches Of One Page Fetch It Once`(fetch: PageFetch) async throws {
    let (query, store, joins) = self.paginatedStore(fetch.values)
    try await fetch.prepare(store)
    let joinsBefore = joins.joins.count
    let started = Gate()
    let release = Gate()
    query.hold(started: started, release: release)

    let first = fetch.task(store)
    let second = fetch.task(store)
    async let firstPage = first.runIfNeeded()
    async let secondPage = second.runIfNeeded()
    await joins.wait(for: joinsBefore + 2)
    release.open()

    #expect(try await firstPage == fetch.expected.page)
    #expect(try await secondPage == fetch.expected.page)
    #expect(query.fetchedPageIds == fetch.expected.fetchedPageIds)
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

/// A query that counts its runs and waits until its task is cancelled, then opens `ended` and
/// throws `CancellationError`.
private struct UntilCancelledQuery: QueryRequest, Sendable {
  let counter = DedupCallCounter()
  let ended = Gate()

  var path: OperationPath { ["until-cancelled"] }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    _ = self.counter.increment()
    let cancelled = Gate()
    await withTaskCancellationHandler {
      await cancelled.wait()
    } onCancel: {
      cancelled.open()
    }
    self.ended.open()
    throw CancellationError()
  }
}

/// An operation whose typed failure cannot hold `CancellationError`, which waits for a gate and
/// counts its runs; it returns -1 when its task was cancelled meanwhile.
private struct TypedGatedOperation: OperationRequest, Sendable {
  let gate: Gate
  let counter = DedupCallCounter()

  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, TestError>
  ) async throws(TestError) -> Int {
    let calls = self.counter.increment()
    await self.gate.wait()
    return Task.isCancelled ? -1 : calls
  }
}

/// An operation with a typed failure that waits for its gate, then returns a given result.
private struct GatedResultOperation: OperationRequest, Sendable {
  let gate: Gate
  let result: Result<Int?, TestError>

  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int?, TestError>
  ) async throws(TestError) -> Int? {
    await self.gate.wait()
    return try self.result.get()
  }
}

/// A query whose value is the name of the Swift task it runs in.
private struct TaskNameQuery: QueryRequest, Sendable {
  var path: OperationPath { ["task-name"] }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<String?, any Error>
  ) async throws -> String? {
    Task.name
  }
}

/// Whether the system has `Task.immediate`, with which a shared run starts on its caller's thread.
private let hasImmediateTasks =
  if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
    true
  } else {
    false
  }

/// A query that logs its runs, and returns 1.
private struct LoggingQuery: QueryRequest, Sendable {
  let events: Lock<[String]>

  var path: OperationPath { ["logging"] }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.events.withLock { $0.append("fetch") }
    return 1
  }
}

/// Names the tasks of the runs of the operation it modifies, as each run starts.
private struct RenamingModifier<Operation: OperationRequest>: OperationModifier, Sendable {
  let name: String

  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws(Operation.Failure) -> Operation.Value {
    var context = context
    context.operationTaskConfiguration.name = self.name
    return try await operation.run(isolation: isolation, in: context, with: continuation)
  }
}

private actor RunActor {}

/// Mutable state that is not `Sendable`.
private final class RunTally {
  var runs = 0
}

/// A query that is not `Sendable`; it counts its runs when it runs on the actor it expects, and
/// returns 0 otherwise.
private struct NonSendableQuery: QueryRequest {
  let expected: RunActor
  let tally = RunTally()

  var path: OperationPath { ["non-sendable"] }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    guard isolation === self.expected else { return 0 }
    self.expected.assertIsolated()
    self.tally.runs += 1
    return self.tally.runs
  }
}
