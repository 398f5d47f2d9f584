import Operation
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `MutationStoreEffects tests` {
  private typealias Feed = QueryState<Int, any Error>

  @Test func `An Optimistic Update Shows Before The Mutation Ends And Stays On Success`()
    async throws
  {
    let client = OperationClient()
    let feed = client.store(for: SteppedQuery(path: ["feed"]))
    feed.currentValue = 1
    let mutation = GatedMutation()
    let store = client.store(
      for: mutation.optimisticUpdate(of: Feed.self, matching: { _ in ["feed"] }) { value, _ in
        value = (value ?? 0) + 100
      }
    )

    let run = Task { try await store.mutate(with: "a") }
    await mutation.gates.waitUntilStarted("a")
    #expect(feed.currentValue == 101)
    mutation.gates.release("a")
    #expect(try await run.value == "a")
    #expect(feed.currentValue == 101)
  }

  @Test func `A Failed Mutation Rolls Its Change Back And Only Its Change`() async throws {
    let client = OperationClient()
    let feed = client.store(for: SteppedQuery(path: ["feed"]))
    feed.currentValue = 0
    let mutation = GatedMutation()
    let store = client.store(
      for: mutation.optimisticUpdate(of: Feed.self, matching: { _ in ["feed"] }) {
        value,
        arguments in
        value = (value ?? 0) + (arguments == "fails" ? 1 : 10)
      }
    )

    let failing = Task { try await store.mutate(with: "fails") }
    await mutation.gates.waitUntilStarted("fails")
    let succeeding = Task { try await store.mutate(with: "succeeds") }
    await mutation.gates.waitUntilStarted("succeeds")
    #expect(feed.currentValue == 11)

    mutation.gates.release("fails", failing: true)
    await #expect(throws: TestError.self) { try await failing.value }
    #expect(feed.currentValue == 10)
    mutation.gates.release("succeeds")
    _ = try await succeeding.value
    #expect(feed.currentValue == 10)
  }

  @Test func `A Fetch That Started Before The Mutation Ended Never Overwrites Its Result`()
    async throws
  {
    let client = OperationClient()
    let query = SteppedQuery(path: ["feed"])
    let feed = client.store(for: query)
    let mutation = GatedMutation()
    let store = client.store(
      for:
        mutation
        .updates(of: Feed.self, matching: { _ in ["feed"] }) { value, _, _ in value = 50 }
        .invalidates(matching: { _ in ["feed"] }, rerun: .all)
    )

    // NB: The race: a fetch starts, then the mutation starts and ends, then the fetch ends with
    // data from before the mutation.
    let staleFetch = Task { try await feed.fetch() }
    await query.steps.waitUntilStarted(0)
    let run = Task { try await store.mutate(with: "a") }
    await mutation.gates.waitUntilStarted("a")
    mutation.gates.release("a")
    await query.steps.waitUntilStarted(1)
    #expect(feed.currentValue == 50)

    query.steps.release(0, returning: 1)
    #expect(try await staleFetch.value == 1)
    #expect(feed.currentValue == 50)

    query.steps.release(1, returning: 60)
    #expect(try await run.value == "a")
    #expect(feed.currentValue == 60)
    #expect(feed.valueUpdateCount == 2)
  }

  @Test func `Updates Write Nothing When The Mutation Fails`() async {
    let client = OperationClient()
    let feed = client.store(for: SteppedQuery(path: ["feed"]))
    feed.currentValue = 1
    let mutation = GatedMutation()
    let store = client.store(
      for: mutation.updates(of: Feed.self, matching: { _ in ["feed"] }) { value, _, _ in
        value = 2
      }
    )
    let run = Task { try await store.mutate(with: "a") }
    mutation.gates.release("a", failing: true)
    await #expect(throws: TestError.self) { try await run.value }
    #expect(feed.currentValue == 1)
  }

  @Test func `Invalidates Reruns Observed Stores After A Failure Too And Waits For Them`()
    async throws
  {
    let client = OperationClient()
    let query = SteppedQuery(path: ["feed"])
    let feed = client.store(for: query)
    let subscription = feed.subscribe { _ in }
    await query.steps.waitUntilStarted(0)
    query.steps.release(0, returning: 1)
    try await feed.activeTasks.first?.runIfNeeded()

    let mutation = GatedMutation()
    let store = client.store(for: mutation.invalidates(matching: { _ in ["feed"] }))
    let run = Task { try await store.mutate(with: "a") }
    mutation.gates.release("a", failing: true)
    await query.steps.waitUntilStarted(1)
    #expect(store.isLoading)
    query.steps.release(1, returning: 2)
    await #expect(throws: TestError.self) { try await run.value }
    #expect(feed.currentValue == 2)
    subscription.cancel()
  }

  @Test func `Invalidating Every Store Still Records The Mutation's Own Result`() async throws {
    let client = OperationClient()
    let mutation = GatedMutation()
    let store = client.store(for: mutation.invalidates(matching: { _ in [] }))
    let run = Task { try await store.mutate(with: "a") }
    mutation.gates.release("a")
    #expect(try await run.value == "a")
    #expect(store.currentValue == "a")
    #expect(store.history.count == 1)
  }

  @Test func `Retried Attempts Apply The Change Once And Resolve It After The Last`() async throws {
    let client = OperationClient()
    let feed = client.store(for: SteppedQuery(path: ["feed"]))
    feed.currentValue = 0
    let values = ValueRecorder<Int?>()
    let subscription = feed.subscribe { values.record($0.currentValue) }
    let mutation = FlakyMutation(failures: 2)
    let store = client.store(
      for:
        mutation
        .optimisticUpdate(of: Feed.self, matching: { _ in ["feed"] }) { value, _ in
          value = (value ?? 0) + 1
        }
        .retry(limit: 2)
    )

    #expect(try await store.mutate(with: "a") == "a")
    #expect(mutation.attempts.value == 3)
    #expect(values.values.removingRepeats() == [0, 1])
    #expect(feed.currentValue == 1)
    subscription.cancel()
  }

  @Test func `Retried Attempts That All Fail Roll Back Once`() async {
    let client = OperationClient()
    let feed = client.store(for: SteppedQuery(path: ["feed"]))
    feed.currentValue = 0
    let values = ValueRecorder<Int?>()
    let subscription = feed.subscribe { values.record($0.currentValue) }
    let mutation = FlakyMutation(failures: 5)
    let store = client.store(
      for:
        mutation
        .optimisticUpdate(of: Feed.self, matching: { _ in ["feed"] }) { value, _ in
          value = (value ?? 0) + 1
        }
        .retry(limit: 2)
    )

    await #expect(throws: TestError.self) { try await store.mutate(with: "a") }
    #expect(mutation.attempts.value == 3)
    #expect(values.values.removingRepeats() == [0, 1, 0])
    subscription.cancel()
  }

  @Test func `Retried Attempts Invalidate Once, After The Last`() async throws {
    let client = OperationClient()
    let query = SteppedQuery(path: ["feed"])
    let feed = client.store(for: query)
    let subscription = feed.subscribe { _ in }
    query.steps.release(0, returning: 1)
    try await feed.activeTasks.first?.runIfNeeded()

    let mutation = FlakyMutation(failures: 1)
    let store = client.store(
      for: mutation.invalidates(matching: { _ in ["feed"] }).retry(limit: 1)
    )
    query.steps.release(1, returning: 2)
    #expect(try await store.mutate(with: "a") == "a")
    #expect(mutation.attempts.value == 2)
    #expect(query.steps.startedCount == 2)
    #expect(feed.currentValue == 2)
    subscription.cancel()
  }

  @Test func `A Detached Mutation Store Runs The Mutation Alone`() async throws {
    let mutation = GatedMutation()
    let store = OperationStore.detached(
      mutation: mutation.invalidates(matching: { _ in [] })
        .optimisticUpdate(of: Feed.self, matching: { _ in [] }) { value, _ in value = 1 }
    )
    let run = Task { try await store.mutate(with: "a") }
    mutation.gates.release("a")
    #expect(try await run.value == "a")
  }
}

/// A mutation that fails its first `failures` attempts with ``TestError`` and then returns its
/// arguments.
private struct FlakyMutation: MutationRequest {
  let failures: Int
  let attempts = CallCounter()

  var path: OperationPath { ["flaky", ObjectIdentifier(self.attempts)] }

  func mutate(
    isolation: isolated (any Actor)?,
    with arguments: String,
    in context: OperationContext,
    with continuation: OperationContinuation<String, any Error>
  ) async throws -> String {
    if self.attempts.increment() <= self.failures {
      throw TestError()
    }
    return arguments
  }
}

extension Array where Element: Equatable {
  /// The elements without consecutive repeats: the values a subscriber saw change.
  fileprivate func removingRepeats() -> [Element] {
    var result = [Element]()
    for element in self where result.last != element {
      result.append(element)
    }
    return result
  }
}
