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
