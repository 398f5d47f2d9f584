@_spi(Warnings) import OperationCore
@_spi(Warnings) import OperationGraph
import OperationGraphTestFixtures
import Testing

@Suite struct `RetryStrategy tests` {
  @Test func `None Never Retries`() {
    let strategy = RetryStrategy<WorkError>.none
    #expect(!strategy.shouldRetry(failureCount: 1, error: WorkError(run: 1)))
  }

  @Test(arguments: [0, 1, 3])
  func `Repeat Times N Retries While The Failure Count Is At Most N`(times: Int) {
    let strategy = RetryStrategy<WorkError>.repeat(times: times)
    let decisions = (1...times + 2).map {
      strategy.shouldRetry(failureCount: $0, error: WorkError(run: $0))
    }
    #expect(decisions == Array(repeating: true, count: times) + [false, false])
  }

  @Test func `Custom Strategies See The Failure Count And The Typed Error`() {
    let seen = WorkRecorder<(Int, WorkError)>()
    let strategy = RetryStrategy<WorkError>.custom { failureCount, error in
      seen.append((failureCount, error))
      return error.run < 2
    }
    #expect(strategy.shouldRetry(failureCount: 1, error: WorkError(run: 1)))
    #expect(!strategy.shouldRetry(failureCount: 2, error: WorkError(run: 2)))
    #expect(seen.all.map(\.0) == [1, 2])
    #expect(seen.all.map(\.1) == [WorkError(run: 1), WorkError(run: 2)])
  }

  @Test func `A Negative Number Of Retries Is Reported And Never Retries`() {
    var strategy = RetryStrategy<WorkError>.custom { _, _ in true }
    withKnownIssue {
      strategy = .repeat(times: -2)
    } matching: { issue in
      issue.comments.contains(
        Comment(rawValue: OperationWarning.retryStrategyNegativeTimes(-2).message)
      )
    }
    #expect(!strategy.shouldRetry(failureCount: 1, error: WorkError(run: 1)))
  }
}
