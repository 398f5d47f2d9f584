import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `Retrying tests` {
  // MARK: - Strategies (PeakOperation RetryTests, Operations RetryOperationTests)

  @Test func `A Strategy Allowing Fewer Than Three Failures Runs Three Times`() async {
    let query = WorkScriptedQuery.failing(untilRun: nil)
    let calls = WorkRecorder<Int>()
    let runner = OperationRunner(
      operation: query.retrying(
        .custom { failureCount, _ in
          calls.append(failureCount)
          return failureCount < 3
        }
      )
    )
    await #expect(throws: WorkError(run: 3)) { try await runner.run() }
    #expect(calls.all == [1, 2, 3])
    #expect(query.log.runs == 3)
  }

  @Test(arguments: [0, 1, 4])
  func `Repeat Times N Runs At Most N Plus One Times And Throws The Last Error`(
    times: Int
  ) async {
    let query = WorkScriptedQuery.failing(untilRun: nil)
    let runner = OperationRunner(operation: query.retrying(.repeat(times: times)))
    await #expect(throws: WorkError(run: times + 1)) { try await runner.run() }
    #expect(query.log.runs == times + 1)
  }

  @Test func `None Runs Once`() async {
    let query = WorkScriptedQuery.failing(untilRun: 2)
    let runner = OperationRunner(operation: query.retrying(.none))
    await #expect(throws: WorkError(run: 1)) { try await runner.run() }
    #expect(query.log.runs == 1)
  }

  @Test func `A Request That Succeeds On Its Second Run Runs Twice With A Wait Between`()
    async throws
  {
    let query = WorkScriptedQuery.failing(untilRun: 2)
    let delayer = RecordingDelayer()
    let runner = OperationRunner(
      operation: query.retrying(.repeat(times: 4), waiting: .fixed(.milliseconds(100)))
        .delayer(delayer)
    )
    #expect(try await runner.run() == 2)
    #expect(query.log.runs == 2)
    #expect(delayer.delays == [.milliseconds(100)])
  }

  @Test func `Four Retries Stop A Request That Would Succeed On Its Ninth Run`() async {
    let query = WorkScriptedQuery.failing(untilRun: 9)
    let runner = OperationRunner(operation: query.retrying(.repeat(times: 4)))
    await #expect(throws: WorkError(run: 5)) { try await runner.run() }
    #expect(query.log.runs == 5)
  }

  @Test func `Waits Follow The Wait Strategy By Failure Count`() async {
    let delayer = RecordingDelayer()
    let runner = OperationRunner(
      operation: WorkScriptedQuery.failing(untilRun: nil)
        .retrying(.repeat(times: 5), waiting: .exponential(.seconds(1), max: .seconds(4)))
        .delayer(delayer)
    )
    _ = try? await runner.run()
    #expect(delayer.delays == [1, 2, 4, 4, 4].map { .seconds($0) })
  }

  @Test func `Waits Go Through A Manual Delayer And Nothing Runs Before They End`() async throws {
    let query = WorkScriptedQuery.failing(untilRun: 2)
    let delayer = ManualDelayer()
    let runner = OperationRunner(
      operation: query.retrying(.repeat(times: 1), waiting: .fixed(.seconds(5))).delayer(delayer)
    )
    let task = Task { try await runner.run() }
    await delayer.waitForDelays(count: 1)
    #expect(query.log.runs == 1)
    #expect(delayer.resumeNext())
    #expect(try await task.value == 2)
    #expect(query.log.runs == 2)
  }

  // MARK: - The attempt log

  @Test func `Earlier Errors Of A Run That Succeeds Are In The Attempt Log`() async throws {
    let log = WorkRecorder<RetryAttempt<WorkError>>()
    let runner = OperationRunner(
      operation: WorkScriptedQuery.failing(untilRun: 5)
        .retrying(.repeat(times: 9), waiting: .fixed(.seconds(1))) { log.append($0) }
        .delayer(.noDelay)
    )
    #expect(try await runner.run() == 5)
    #expect(
      log.all
        == (1...4).map { RetryAttempt(number: $0, error: WorkError(run: $0), wait: .seconds(1)) }
    )
    #expect(log.all.allSatisfy { $0.wasRetried })
  }

  @Test func `The Attempt That Ends A Failed Run Has No Wait In The Log`() async {
    let log = WorkRecorder<RetryAttempt<WorkError>>()
    let runner = OperationRunner(
      operation: WorkScriptedQuery.failing(untilRun: nil)
        .retrying(.repeat(times: 1), waiting: .fixed(.seconds(2))) { log.append($0) }
        .delayer(.noDelay)
    )
    _ = try? await runner.run()
    #expect(
      log.all == [
        RetryAttempt(number: 1, error: WorkError(run: 1), wait: .seconds(2)),
        RetryAttempt(number: 2, error: WorkError(run: 2), wait: nil),
      ]
    )
  }

  // MARK: - Handlers (Operations RetryOperation's handler)

  @Test func `A Handler Stopping After Ten Failures Runs Ten Times`() async {
    let query = WorkScriptedQuery.failing(untilRun: nil)
    let runner = OperationRunner(
      operation: query.retrying { failure in failure.failureCount < 10 ? .retry : .stop }
    )
    await #expect(throws: WorkError(run: 10)) { try await runner.run() }
    #expect(query.log.runs == 10)
  }

  @Test func `A Handler Sees The Error, Every Error So Far And The Count`() async throws {
    let query = WorkScriptedQuery.failing(untilRun: 3)
    let seen = WorkRecorder<RetryFailure<WorkScriptedQuery<Int>>>()
    let runner = OperationRunner(
      operation: query.retrying { failure in
        seen.append(failure)
        return .retry
      }
    )
    #expect(try await runner.run() == 3)
    #expect(query.log.runs == 3)
    #expect(seen.all.count == 2)
    let second = try #require(seen.all.last)
    #expect(second.error == WorkError(run: 2))
    #expect(second.errors == [WorkError(run: 1), WorkError(run: 2)])
    #expect(second.failureCount == 2)
    #expect(
      second.previousAttempts == [RetryAttempt(number: 1, error: WorkError(run: 1), wait: .zero)]
    )
  }

  @Test func `A Handler Returning Stop Runs Once And Throws`() async {
    let query = WorkScriptedQuery.failing(untilRun: 2)
    let calls = WorkRecorder<Int>()
    let runner = OperationRunner(
      operation: query.retrying { failure in
        calls.append(failure.failureCount)
        return .stop
      }
    )
    await #expect(throws: WorkError(run: 1)) { try await runner.run() }
    #expect(query.log.runs == 1)
    #expect(calls.all == [1])
  }

  @Test func `A Handler's Waits Go To The Delayer`() async throws {
    let delayer = RecordingDelayer()
    let runner = OperationRunner(
      operation: WorkScriptedQuery.failing(untilRun: 3)
        .retrying { failure in .retry(after: .seconds(failure.failureCount * 10)) }
        .delayer(delayer)
    )
    #expect(try await runner.run() == 3)
    #expect(delayer.delays == [.seconds(10), .seconds(20)])
  }

  @Test func `A Handler Can Retry With Another Request`() async throws {
    let log = WorkRunLog()
    let failedQualities = WorkRecorder<Quality>()
    let delayer = RecordingDelayer()
    let runner = OperationRunner(
      operation: Download(log: log, quality: .high)
        .retrying { failure in
          failedQualities.append(failure.request.quality)
          return .retry(with: Download(log: log, quality: .low), after: .seconds(1))
        }
        .delayer(delayer)
    )
    #expect(try await runner.run() == "low")
    #expect(failedQualities.all == [.high])
    #expect(log.runs == 2)
    #expect(delayer.delays == [.seconds(1)])
  }

  @Test func `Decisions Say Their Wait And Replacement`() {
    #expect(RetryDecision<Download>.stop.wait == nil)
    #expect(RetryDecision<Download>.stop.replacement == nil)
    #expect(RetryDecision<Download>.retry.wait == .zero)
    #expect(RetryDecision<Download>.retry(after: .seconds(2)).wait == .seconds(2))
    let replaced = RetryDecision.retry(
      with: Download(log: WorkRunLog(), quality: .low),
      after: .seconds(1)
    )
    #expect(replaced.wait == .seconds(1))
    #expect(replaced.replacement?.quality == .low)
  }

  @Test func `A Handler Can Be Tested Without Running A Request`() {
    let handler: @Sendable (RetryFailure<Download>) -> RetryDecision<Download> = { failure in
      failure.errors.count < 2 ? .retry(after: .seconds(1)) : .stop
    }
    let first = RetryFailure(
      request: Download(log: WorkRunLog(), quality: .high),
      error: WorkError(run: 1),
      failureCount: 1,
      previousAttempts: []
    )
    let second = RetryFailure(
      request: first.request,
      error: WorkError(run: 2),
      failureCount: 2,
      previousAttempts: [RetryAttempt(number: 1, error: WorkError(run: 1), wait: .seconds(1))]
    )
    #expect(handler(first).wait == .seconds(1))
    #expect(handler(second).wait == nil)
  }

  // MARK: - Context and other retry modifiers

  @Test func `The Retry Index Is Nil First Then Counts Retries`() async {
    let query = WorkScriptedQuery.failing(untilRun: nil)
    let runner = OperationRunner(operation: query.retrying(.repeat(times: 2)))
    _ = try? await runner.run()
    #expect(query.log.retryIndices == [nil, 0, 1])
  }

  @Test func `A Core Retry Outside Runs It Once`() async {
    let query = WorkScriptedQuery.failing(untilRun: nil)
    let runner = OperationRunner(
      operation: query.retrying(.repeat(times: 2)).retry(limit: 3).delayer(.noDelay)
    )
    await #expect(throws: WorkError(run: 3)) { try await runner.run() }
    #expect(query.log.runs == 3)
  }

  @Test func `A Core Retry Inside Retries Each Attempt`() async {
    let query = WorkScriptedQuery.failing(untilRun: nil)
    let runner = OperationRunner(
      operation: query.retry(limit: 1).retrying(.repeat(times: 2)).delayer(.noDelay)
        .backoff(.noBackoff)
    )
    await #expect(throws: WorkError(run: 6)) { try await runner.run() }
    #expect(query.log.runs == 6)
  }

  @Test func `A Store Holds A Retried Query`() async throws {
    let query = WorkScriptedQuery.failing(untilRun: 3)
    let retried = query.retrying(.repeat(times: 3))
    #expect(retried.path == query.path)
    let store = OperationStore.detached(query: retried, initialValue: nil)
    store.context.operationDelayer = NoDelayer()
    #expect(try await store.fetch() == 3)
    #expect(store.currentValue == 3)
    #expect(query.log.runs == 3)
  }

  // MARK: - Cancellation

  @Test func `The Failure Of A Cancelled Task Is Not Retried`() async {
    let request = WorkHeldRequest()
    let calls = WorkRecorder<Int>()
    let log = WorkRecorder<RetryAttempt<any Error>>()
    let runner = OperationRunner(
      operation: request.retrying(
        .custom { failureCount, _ in
          calls.append(failureCount)
          return true
        },
        onFailedAttempt: { log.append($0) }
      )
    )
    let task = Task { try await runner.run() }
    let result = await request.cancelMidRun(task)
    #expect(throws: CancellationError.self) { try result.get() }
    #expect(request.log.runs == 1)
    #expect(calls.all.isEmpty)
    #expect(log.all.map(\.wait) == [nil])
  }

  @Test func `Cancellation During A Wait Ends The Run With The Last Error`() async {
    let query = WorkScriptedQuery.failing(untilRun: nil)
    let delayer = ManualDelayer()
    let runner = OperationRunner(
      operation: query.retrying(.repeat(times: 3), waiting: .fixed(.seconds(5))).delayer(delayer)
    )
    let task = Task { try await runner.run() }
    await delayer.waitForDelays(count: 1)
    task.cancel()
    await #expect(throws: WorkError(run: 1)) { try await task.value }
    #expect(query.log.runs == 1)
    #expect(delayer.cancelledCount == 1)
  }

  @Test func `An Attempt That Ignores Cancellation And Succeeds Still Succeeds`() async throws {
    var request = WorkHeldRequest()
    request.ignoresCancellation = true
    let runner = OperationRunner(operation: request.retrying(.repeat(times: 3)))
    let task = Task { try await runner.run() }
    #expect(try await request.cancelMidRun(task).get() == 7)
  }
}

private enum Quality: Hashable, Sendable {
  case high
  case low
}

private struct Download: OperationRequest, Sendable {
  let log: WorkRunLog
  let quality: Quality

  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<String, WorkError>
  ) async throws(WorkError) -> String {
    let run = self.log.start(context)
    guard self.quality == .low else { throw WorkError(run: run) }
    return "low"
  }
}
