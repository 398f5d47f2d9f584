import Foundation
import Operation
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `OperationStore+Invalidation tests` {
  @Test func `Invalidating Makes A Fresh Store Stale Until A Later Run Succeeds`() async throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 0))
    let store = OperationStore.detached(
      query: TestQuery().stale(after: .seconds(60)),
      initialValue: nil
    )
    store.context.operationClock = clock
    try await store.fetch()
    #expect(!store.isStale)

    store.invalidate()
    #expect(store.isInvalidated)
    #expect(store.isStale)

    try await store.fetch()
    #expect(!store.isInvalidated)
    #expect(!store.isStale)
  }

  @Test func `A Run That Started Before The Invalidation Does Not End It`() async throws {
    let query = SteppedQuery(path: ["stepped"])
    let store = OperationStore.detached(query: query, initialValue: nil)
    let run = Task { try await store.fetch() }
    await query.steps.waitUntilStarted(0)

    store.invalidate()
    query.steps.release(0, returning: 1)
    #expect(try await run.value == 1)
    #expect(store.currentValue == 1)
    #expect(store.isInvalidated)
  }

  @Test func `Setting A Value Ends The Invalidation`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    store.invalidate()
    store.currentValue = 3
    #expect(!store.isInvalidated)
  }

  @Test func `A Failed Rerun Leaves The Store Invalidated`() async {
    let query = SteppedQuery(path: ["stepped"])
    let store = OperationStore.detached(query: query, initialValue: nil)
    let rerun = store.invalidateAndRerun()
    query.steps.release(0, with: .failure(TestError()))
    await #expect(throws: TestError()) { try await rerun.runIfNeeded() }
    #expect(store.isInvalidated)
  }

  @Test func `A Result Of An Earlier Run Arriving After The Rerun Is Refused`() async throws {
    let query = SteppedQuery(path: ["stepped"])
    let store = OperationStore.detached(query: query, initialValue: nil)
    let earlier = Task { try await store.fetch() }
    await query.steps.waitUntilStarted(0)

    let rerun = store.invalidateAndRerun()
    await query.steps.waitUntilStarted(1)
    query.steps.release(1, returning: 2)
    #expect(try await rerun.runIfNeeded() == 2)

    query.steps.release(0, returning: 1)
    // NB: The caller of the earlier run still gets its value; the store keeps the newer one.
    #expect(try await earlier.value == 1)
    #expect(store.currentValue == 2)
    #expect(store.valueUpdateCount == 1)
    #expect(!store.isLoading)
  }

  @Test func `A Result Of An Earlier Run Arriving Before The Rerun Is Refused Too`() async throws {
    let query = SteppedQuery(path: ["stepped"])
    let store = OperationStore.detached(query: query, initialValue: nil)
    let earlier = Task { try await store.fetch() }
    await query.steps.waitUntilStarted(0)

    let rerun = store.invalidateAndRerun()
    query.steps.release(0, returning: 1)
    #expect(try await earlier.value == 1)
    #expect(store.currentValue == nil)
    #expect(store.isLoading)

    query.steps.release(1, returning: 2)
    try await rerun.runIfNeeded()
    #expect(store.currentValue == 2)
  }

  @Test func `The Rerun Does Not Join A Deduplicated Run That Started Earlier`() async throws {
    let query = SteppedQuery(path: ["stepped"])
    let store = OperationStore.detached(query: query.deduplicated(), initialValue: nil)
    let joins = JoinRecorder()
    store.context.deduplicationJoinObserver = joins.record
    let earlier = Task { try await store.fetch() }
    await query.steps.waitUntilStarted(0)

    let rerun = store.invalidateAndRerun()
    await query.steps.waitUntilStarted(1)
    #expect(query.steps.startedCount == 2)

    // NB: A run after the rerun joins the rerun, not the earlier run.
    let later = Task { try await store.fetch() }
    await joins.wait(for: 3)
    #expect(joins.joins == [.started, .started, .joined])
    query.steps.release(1, returning: 2)
    #expect(try await rerun.runIfNeeded() == 2)
    #expect(try await later.value == 2)
    query.steps.release(0, returning: 1)
    #expect(try await earlier.value == 1)
    #expect(query.steps.startedCount == 2)
    #expect(store.currentValue == 2)
  }

  @Test func `An Invalidated Store Runs For Its Next Subscriber Though Its Value Is Fresh`() async {
    let client = OperationClient()
    let query = GatedQuery()
    let store = client.store(for: query.stale(after: .seconds(3600)))
    store.currentValue = 1
    store.invalidate()

    let subscription = store.subscribe { _ in }
    await query.started.wait()
    #expect(query.fetchCount.value == 1)
    query.gate.open()
    subscription.cancel()
  }

  @Test func `A Fresh Store That Is Not Invalidated Does Not Run For Its Next Subscriber`() {
    let client = OperationClient()
    let query = GatedQuery()
    let store = client.store(for: query.stale(after: .seconds(3600)))
    store.currentValue = 1
    let subscription = store.subscribe { _ in }
    #expect(query.fetchCount.value == 0)
    #expect(!store.isLoading)
    subscription.cancel()
  }

  @Test func `Cancel Runs Cancels Every Run In Flight`() async {
    let query = GatedQuery()
    let store = OperationStore.detached(query: query, initialValue: nil)
    let run = Task { try await store.fetch() }
    await query.started.wait()
    let pending = store.runTask()
    #expect(store.runsInFlightCount == 2)

    #expect(store.cancelRuns() == 2)
    query.gate.open()
    await #expect(throws: CancellationError.self) { try await run.value }
    await #expect(throws: CancellationError.self) { try await pending.runIfNeeded() }
    #expect(store.runsInFlightCount == 0)
    #expect(store.status.isCancelled)
    #expect(store.cancelRuns() == 0)
  }
}
