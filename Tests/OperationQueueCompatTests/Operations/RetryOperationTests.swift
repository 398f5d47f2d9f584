import Foundation
import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationQueueCompat
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `RetryOperation tests` {
  /// Attempts that fail until attempt `threshold`, which succeeds.
  static func failing(until threshold: Int) -> @Sendable (Int) -> TestOperation? {
    { attempt in TestOperation(error: attempt < threshold ? TestError(id: attempt) : nil) }
  }

  static func retry(
    maxCount: Int? = 5,
    threshold: Int,
    handler: RetryOperation<TestOperation>.Handler? = nil
  ) -> (RetryOperation<TestOperation>, RecordingDelayer) {
    let retry = RetryOperation(
      maxCount: maxCount,
      Self.failing(until: threshold),
      retry: handler
    )
    let delayer = RecordingDelayer()
    retry.context.operationDelayer = delayer
    return (retry, delayer)
  }

  @Test func `The default init retries failures with 0.1 s waits`() async throws {
    let (retry, delayer) = Self.retry(threshold: 2)
    OperationQueue().addOperation(retry)
    try await retry.untilFinished()
    #expect(retry.count == 2)
    #expect(delayer.delays == [.seconds(0.1)])
    #expect(retry.errors.isEmpty)
    #expect(retry.aggregateErrors.count == 1)
  }

  @Test func `It stops at maxCount, 5 by default`() async throws {
    let (retry, delayer) = Self.retry(threshold: 9)
    OperationQueue().addOperation(retry)
    try? await retry.untilFinished()
    #expect(retry.count == 5)
    #expect(delayer.delays.count == 4)
    #expect(retry.aggregateErrors.count == 5)
    #expect(retry.errors.count == 1)
    #expect(retry.errors.first as? TestError == TestError(id: 5))
  }

  @Test func `It stops when the generator ends`() async throws {
    let retry = RetryOperation(maxCount: nil, wait: .none) { attempt in
      attempt > 10 ? nil : TestOperation(error: TestError(id: attempt))
    }
    OperationQueue().addOperation(retry)
    try? await retry.untilFinished()
    #expect(retry.count == 10)
    #expect(retry.aggregateErrors.count == 10)
  }

  @Test func `The handler sees each failure and the aggregate so far`() async throws {
    let seen = Lock([(errors: Int, aggregate: Int, count: Int)]())
    let (retry, _) = Self.retry(threshold: 3) { info, recommended in
      seen.withLock { $0.append((info.errors.count, info.aggregateErrors.count, info.count)) }
      #expect(info.operation.failed)
      return recommended
    }
    OperationQueue().addOperation(retry)
    try await retry.untilFinished()
    let calls = seen.withLock { $0 }
    #expect(calls.count == 2)
    #expect(calls.last?.errors == 1)
    #expect(calls.last?.aggregate == 2)
    #expect(calls.last?.count == 2)
    #expect(retry.count == 3)
  }

  @Test func `A handler returning nil stops after the first attempt`() async throws {
    let calls = Latch()
    let (retry, _) = Self.retry(threshold: 3) { _, _ in
      calls.arrive()
      return nil
    }
    OperationQueue().addOperation(retry)
    try? await retry.untilFinished()
    #expect(retry.count == 1)
    #expect(calls.count == 1)
  }

  @Test func `A handler can change the next attempt and its wait`() async throws {
    let replacement = TestOperation(name: "replacement")
    let (retry, delayer) = Self.retry(threshold: 3) { _, _ in
      RepeatedPayload(wait: .seconds(7), operation: replacement)
    }
    OperationQueue().addOperation(retry)
    try await retry.untilFinished()
    #expect(replacement.didExecute)
    #expect(retry.count == 2)
    #expect(delayer.delays == [.seconds(7)])
  }
}
