import OperationCore
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

  @Test func `Backoff Functions Follow Their Curves`() {
    #expect(
      (0...5).map { OperationBackoffFunction.exponential(.seconds(1))($0) }
        == [0, 1, 2, 4, 8, 16].map { .seconds($0) }
    )
    #expect(
      (0...5).map { OperationBackoffFunction.fibonacci(.seconds(1))($0) }
        == [0, 1, 1, 2, 3, 5].map { .seconds($0) }
    )
    #expect(
      (0...3).map { OperationBackoffFunction.linear(.seconds(2))($0) }
        == [0, 2, 4, 6].map { .seconds($0) }
    )
    #expect(OperationBackoffFunction.noBackoff(3) == .zero)
    #expect(
      OperationBackoffFunction.noBackoff.description == "OperationBackoffFunction(No Backoff)"
    )
  }
}

private struct RetryTestError: Error, Equatable {
  let attempt: Int
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
