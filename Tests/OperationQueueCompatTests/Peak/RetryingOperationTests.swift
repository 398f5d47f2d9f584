import Foundation
import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationQueueCompat
import OperationSynchronization
import OperationTestSupport
import Testing

/// Fails until its `succeedsOnExecution`th execution (never, for `nil`), counting executions.
private final class FlakyOperation: RetryingOperation<Int>, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; the stored properties are
  // `let`s of `Sendable` types.
  private let succeedsOnExecution: Int?
  private let executions = Lock(0)

  init(succeedsOnExecution: Int? = nil) {
    self.succeedsOnExecution = succeedsOnExecution
    super.init()
  }

  var executionCount: Int {
    self.executions.withLock { $0 }
  }

  override func execute() {
    let execution = self.executions.withLock {
      $0 += 1
      return $0
    }
    if execution == self.succeedsOnExecution {
      self.output = .success(execution)
    } else {
      self.output = .failure(PeakTestError(id: execution))
    }
    self.finish()
  }
}

@Suite(.timeLimit(.minutes(1))) struct `RetryingOperation tests` {
  @Test func `A strategy allowing fewer than three failures runs three times`() async throws {
    let calls = Lock([Int]())
    let operation = FlakyOperation()
    operation.retryStrategy = { failureCount in
      calls.withLock { $0.append(failureCount) }
      return failureCount < 3
    }
    let result = await enqueueForResult(operation)
    #expect(calls.withLock { $0 } == [1, 2, 3])
    #expect(operation.executionCount == 3)
    #expect(operation.failureCount == 3)
    #expect(throws: PeakTestError(id: 3)) { try result.get() }
  }

  @Test func `The default strategy never retries`() async throws {
    let operation = FlakyOperation()
    #expect(operation.failureCount == 0)
    _ = await enqueueForResult(operation)
    #expect(operation.executionCount == 1)
    #expect(operation.failureCount == 1)
  }

  @Test func `RetryStrategy.none never retries`() async throws {
    let operation = FlakyOperation(succeedsOnExecution: 2)
    operation.retryStrategy = RetryStrategy.none
    let result = await enqueueForResult(operation)
    #expect(operation.executionCount == 1)
    #expect(throws: PeakTestError(id: 1)) { try result.get() }
  }

  @Test(arguments: [0, 1, 2, 4])
  func `RetryStrategy.repeat(times:) executes at most times plus one`(times: Int) async throws {
    let operation = FlakyOperation()
    operation.retryStrategy = RetryStrategy.repeat(times: times)
    _ = await enqueueForResult(operation)
    #expect(operation.executionCount == times + 1)
  }

  @Test func `A success stops the retries`() async throws {
    let operation = FlakyOperation(succeedsOnExecution: 2)
    operation.retryStrategy = RetryStrategy.repeat(times: 5)
    let result = await enqueueForResult(operation)
    #expect(try result.get() == 2)
    #expect(operation.executionCount == 2)
    #expect(operation.failureCount == 1)
  }

  @Test func `Finish events are sent once, after the last attempt`() async throws {
    let log = EventLog()
    let operation = FlakyOperation()
    operation.retryStrategy = RetryStrategy.repeat(times: 2)
    operation.addWillFinishBlock { log.append("will finish") }
    operation.addDidFinishBlock { log.append("did finish") }
    _ = await enqueueForResult(operation)
    #expect(operation.executionCount == 3)
    #expect(log.events == ["will finish", "did finish"])
  }

  @Test func `A cancelled operation is not retried`() async throws {
    let operation = FlakyOperation()
    operation.retryStrategy = { _ in
      operation.cancel()
      return true
    }
    _ = await enqueueForResult(operation)
    #expect(operation.executionCount == 1)
    #expect(operation.isCancelled)
  }

  @Test func `The request spellings of RetryStrategy still compile and behave`() async throws {
    let repeated = WorkScriptedQuery.failing(untilRun: nil)
    let repeatRunner = OperationRunner(operation: repeated.retrying(.repeat(times: 3)))
    await #expect(throws: WorkError(run: 4)) { try await repeatRunner.run() }
    #expect(repeated.log.runs == 4)

    let once = WorkScriptedQuery.failing(untilRun: 2)
    let onceRunner = OperationRunner(operation: once.retrying(.none))
    await #expect(throws: WorkError(run: 1)) { try await onceRunner.run() }
    #expect(once.log.runs == 1)

    let explicit: RetryStrategy<any Error> = .none
    #expect(!explicit.shouldRetry(failureCount: 1, error: PeakTestError()))
  }
}
