import OperationCore
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `Retry tests` {
  @Test(arguments: [0, 1, 3])
  func `Runs Limit Plus One Times Then Throws The Last Error`(limit: Int) async {
    let attempts = Attempts()
    let delayer = RecordingDelayer()
    let runner = OperationRunner(
      operation: AlwaysFailing(attempts: attempts).retry(limit: limit).delayer(delayer)
        .backoff(.linear(.seconds(1)))
    )
    await #expect(throws: RetryTestError(attempt: limit + 1)) { try await runner.run() }
    #expect(attempts.count == limit + 1)
    #expect(delayer.delays == (0..<limit).map { .seconds($0 + 1) })
  }

  @Test func `Innermost Retry Wins`() async {
    let attempts = Attempts()
    let runner = OperationRunner(
      operation: AlwaysFailing(attempts: attempts).retry(limit: 1).retry(limit: 5)
        .delayer(.noDelay)
    )
    _ = try? await runner.run()
    #expect(attempts.count == 2)
  }

  @Test func `Context Max Retries Overrides The Limit At Run Time`() async {
    let attempts = Attempts()
    var runner = OperationRunner(
      operation: AlwaysFailing(attempts: attempts).retry(limit: 1).delayer(.noDelay)
    )
    runner.context.operationMaxRetries = 4
    _ = try? await runner.run()
    #expect(attempts.count == 5)
  }

  @Test func `Retry Index Is Nil First Then Counts Retries`() async {
    let indices = Attempts()
    let runner = OperationRunner(
      operation: AlwaysFailing(attempts: indices).retry(limit: 2).delayer(.noDelay)
    )
    _ = try? await runner.run()
    #expect(indices.retryIndices == [nil, 0, 1])
  }

  @Test func `Predicate Sees Failure Counts And Errors In Order`() async {
    let attempts = Attempts()
    let calls = PredicateCalls()
    let runner = OperationRunner(
      operation: AlwaysFailing(attempts: attempts)
        .retry(limit: 3) { failureCount, error in
          calls.record(failureCount, error)
          return true
        }
        .delayer(.noDelay)
    )
    await #expect(throws: RetryTestError(attempt: 4)) { try await runner.run() }
    #expect(attempts.count == 4)
    #expect(calls.failureCounts == [1, 2, 3])
    #expect(calls.failedAttempts == [1, 2, 3])
  }

  @Test func `Predicate Returning False Stops And Throws That Error`() async {
    let attempts = Attempts()
    let delayer = RecordingDelayer()
    let runner = OperationRunner(
      operation: AlwaysFailing(attempts: attempts)
        .retry(limit: 5) { failureCount, _ in failureCount < 2 }
        .delayer(delayer)
        .backoff(.linear(.seconds(1)))
    )
    await #expect(throws: RetryTestError(attempt: 2)) { try await runner.run() }
    #expect(attempts.count == 2)
    #expect(delayer.delays == [.seconds(1)])
  }

  @Test func `Predicate Is Not Called Without Retries Left`() async {
    let calls = PredicateCalls()
    let runner = OperationRunner(
      operation: AlwaysFailing(attempts: Attempts())
        .retry(limit: 0) { failureCount, error in
          calls.record(failureCount, error)
          return true
        }
    )
    await #expect(throws: RetryTestError(attempt: 1)) { try await runner.run() }
    #expect(calls.failureCounts.isEmpty)
  }

  @Test func `Innermost Retry Uses Its Own Predicate`() async {
    let attempts = Attempts()
    let runner = OperationRunner(
      operation: AlwaysFailing(attempts: attempts)
        .retry(limit: 3) { _, _ in false }
        .retry(limit: 5)
        .delayer(.noDelay)
    )
    _ = try? await runner.run()
    #expect(attempts.count == 1)
  }

  @Test func `Outer Retry Predicate Is Never Called`() async {
    let attempts = Attempts()
    let calls = PredicateCalls()
    let runner = OperationRunner(
      operation: AlwaysFailing(attempts: attempts)
        .retry(limit: 2)
        .retry(limit: 5) { failureCount, error in
          calls.record(failureCount, error)
          return false
        }
        .delayer(.noDelay)
    )
    _ = try? await runner.run()
    #expect(attempts.count == 3)
    #expect(calls.failureCounts.isEmpty)
  }

  @Test func `Context Max Retries Overrides The Limit Of A Predicate Retry`() async {
    let attempts = Attempts()
    let calls = PredicateCalls()
    var runner = OperationRunner(
      operation: AlwaysFailing(attempts: attempts)
        .retry(limit: 1) { failureCount, error in
          calls.record(failureCount, error)
          return true
        }
        .delayer(.noDelay)
    )
    runner.context.operationMaxRetries = 3
    _ = try? await runner.run()
    #expect(attempts.count == 4)
    #expect(calls.failureCounts == [1, 2, 3])
  }

  @Test(arguments: [1, 3])
  func `Succeeds On The Attempt That Succeeds`(failures: Int) async throws {
    let query = ScriptedQuery(
      Array(repeating: .failure(TestError()), count: failures) + [.success(9)]
    )
    let delayer = RecordingDelayer()
    let runner = OperationRunner(
      operation: query.retry(limit: 3).delayer(delayer).backoff(.linear(.seconds(1)))
    )
    #expect(try await runner.run() == 9)
    #expect(delayer.delays == (1...failures).map { .seconds($0) })
  }

  @Test func `A Cancelled Run Whose Body Ignores Cancellation Still Succeeds`() async throws {
    let query = CancellationIgnoringQuery(value: 4)
    query.gate.open()
    let store = OperationStore.detached(
      query: query.retry(limit: 3).delayer(.noDelay),
      initialValue: nil
    )
    let task = store.fetchTask()
    task.cancel()
    #expect(try await task.runIfNeeded() == 4)
    #expect(store.currentValue == 4)
  }
}

private struct RetryTestError: Error, Equatable {
  let attempt: Int
}

private final class PredicateCalls: Sendable {
  private let state = Lock((failureCounts: [Int](), failedAttempts: [Int]()))

  var failureCounts: [Int] { self.state.withLock { $0.failureCounts } }
  var failedAttempts: [Int] { self.state.withLock { $0.failedAttempts } }

  func record(_ failureCount: Int, _ error: any Error) {
    self.state.withLock { state in
      state.failureCounts.append(failureCount)
      state.failedAttempts.append((error as? RetryTestError)?.attempt ?? -1)
    }
  }
}

private final class Attempts: Sendable {
  private let state = Lock((count: 0, retryIndices: [Int?]()))

  var count: Int { self.state.withLock { $0.count } }
  var retryIndices: [Int?] { self.state.withLock { $0.retryIndices } }

  func record(_ context: OperationContext) -> Int {
    self.state.withLock { state in
      state.count += 1
      state.retryIndices.append(context.operationRetryIndex)
      return state.count
    }
  }
}

private struct AlwaysFailing: OperationRequest, Sendable {
  let attempts: Attempts

  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    throw RetryTestError(attempt: self.attempts.record(context))
  }
}
