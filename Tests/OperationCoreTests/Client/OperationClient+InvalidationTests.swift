import Operation
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `OperationClient+Invalidation tests` {
  @Test func `Invalidate Reruns Observed Stores And Marks The Others`() async throws {
    let client = OperationClient()
    let feed = SteppedQuery(path: ["feed", 1])
    let query = feed.steps
    let observed = client.store(for: feed)
    let unobserved = client.store(for: SteppedQuery(path: ["feed", 2]))
    let outside = client.store(for: SteppedQuery(path: ["profile"]))

    let subscription = observed.subscribe { _ in }
    await query.waitUntilStarted(0)
    query.release(0, returning: 1)
    try await observed.activeTasks.first?.runIfNeeded()

    let invalidation = Task { await client.invalidate(matching: ["feed"]) }
    await query.waitUntilStarted(1)
    query.release(1, returning: 2)
    let result = await invalidation.value

    #expect(Set(result.matched) == [["feed", 1], ["feed", 2]])
    #expect(result.rerun == [["feed", 1]])
    #expect(result.failures.isEmpty)
    #expect(observed.currentValue == 2)
    #expect(!observed.isInvalidated)
    #expect(unobserved.isInvalidated)
    #expect(!unobserved.isLoading)
    #expect(!outside.isInvalidated)
    subscription.cancel()
  }

  @Test func `An Invalidated Unobserved Store Runs When Next Observed`() async throws {
    let client = OperationClient()
    let query = SteppedQuery(path: ["feed"])
    let store = client.store(for: query.stale(after: .seconds(3600)))
    store.currentValue = 1
    await client.invalidate(matching: ["feed"])
    #expect(query.steps.startedCount == 0)

    let subscription = store.subscribe { _ in }
    await query.steps.waitUntilStarted(0)
    query.steps.release(0, returning: 2)
    try await store.activeTasks.first?.runIfNeeded()
    #expect(store.currentValue == 2)
    subscription.cancel()
  }

  @Test func `Rerun All Reruns Unobserved Stores And None Reruns Nothing`() async throws {
    let client = OperationClient()
    let query = SteppedQuery(path: ["feed"])
    let store = client.store(for: query)

    let none = await client.invalidate(matching: ["feed"], rerun: .none)
    #expect(none.rerun.isEmpty)
    #expect(query.steps.startedCount == 0)

    let all = Task { await client.invalidate(matching: ["feed"], rerun: .all) }
    await query.steps.waitUntilStarted(0)
    query.steps.release(0, returning: 7)
    #expect(await all.value.rerun == [["feed"]])
    #expect(store.currentValue == 7)
  }

  @Test func `The Predicate Chooses Among Matching Stores`() async {
    let client = OperationClient()
    let kept = client.store(for: SteppedQuery(path: ["feed", 1]))
    let chosen = client.store(for: SteppedQuery(path: ["feed", 2]))
    let result = await client.invalidate(matching: ["feed"], rerun: .none) {
      $0.path == ["feed", 2]
    }
    #expect(result.matched == [["feed", 2]])
    #expect(!kept.isInvalidated)
    #expect(chosen.isInvalidated)
  }

  @Test func `Mutations Are Marked But Never Rerun`() async {
    let client = OperationClient()
    let mutation = GatedMutation()
    let store = client.store(for: mutation)
    let subscription = store.subscribe { _ in }
    let result = await client.invalidate(rerun: .all)
    #expect(result.matched == [store.path])
    #expect(result.rerun.isEmpty)
    #expect(store.history.isEmpty)
    subscription.cancel()
  }

  @Test func `Failed Reruns Are Reported By Path`() async {
    let client = OperationClient()
    let query = SteppedQuery(path: ["feed"])
    _ = client.store(for: query)
    let invalidation = Task { await client.invalidate(rerun: .all) }
    await query.steps.waitUntilStarted(0)
    query.steps.release(0, with: .failure(TestError()))
    let result = await invalidation.value
    #expect(result.failures[["feed"]] as? TestError == TestError())
  }

  @Test func `Cancel Cancels The Runs Of Matching Stores`() async throws {
    let client = OperationClient()
    let feed = GatedQuery()
    let other = GatedQuery()
    let feedStore = client.store(for: feed)
    let otherStore = client.store(for: other)
    let feedRun = Task { try await feedStore.fetch() }
    let otherRun = Task { try await otherStore.fetch() }
    await feed.started.wait()
    await other.started.wait()

    #expect(client.cancel(matching: feed.path) == 1)
    feed.gate.open()
    other.gate.open()
    await #expect(throws: CancellationError.self) { try await feedRun.value }
    #expect(try await otherRun.value == 1)
  }

  @Test func `Reset State Restores Matching Stores And Reruns The Observed Ones`() async throws {
    let client = OperationClient()
    let query = SteppedQuery(path: ["feed"])
    let store = client.store(for: query)
    let subscription = store.subscribe { _ in }
    await query.steps.waitUntilStarted(0)
    query.steps.release(0, returning: 1)
    try await store.activeTasks.first?.runIfNeeded()
    #expect(store.currentValue == 1)

    let reset = Task { await client.resetState(matching: ["feed"]) }
    await query.steps.waitUntilStarted(1)
    #expect(store.currentValue == nil)
    query.steps.release(1, returning: 2)
    #expect(await reset.value.rerun == [["feed"]])
    #expect(store.currentValue == 2)
    subscription.cancel()
  }
}
