import IssueReporting
@_spi(Warnings) import OperationCore
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `Repeating tests` {
  typealias State = QueryState<Int, any Error>

  @Test func `Yields Every Poll And Returns The Last`() async throws {
    let delayer = RecordingDelayer()
    let query = PollingQuery()
    let store = OperationStore.detached(
      query: query.repeating(every: .seconds(1)) { result in
        ((try? result.get()) ?? 0) < 3
      },
      initialValue: nil
    )
    store.context.operationDelayer = delayer
    let recorder = OperationEventRecorder<State>()
    #expect(try await store.fetch(handler: recorder.queryEventHandler()) == 3)
    #expect(
      recorder.events == [
        .stateChanged, .runStarted, .resultReceived(.success(1)), .stateChanged,
        .resultReceived(.success(2)), .stateChanged, .resultReceived(.success(3)), .runEnded,
        .stateChanged,
      ]
    )
    #expect(recorder.states.map(\.currentValue) == [nil, 1, 2, 3])
    #expect(query.counter.value == 3)
    #expect(delayer.delays == [.seconds(1), .seconds(1)])
  }

  @Test func `Stops After One Run When The Predicate Declines`() async throws {
    let delayer = RecordingDelayer()
    let predicateCalls = CallCounter()
    let query = PollingQuery()
    let store = OperationStore.detached(
      query: query.repeating(every: .seconds(1)) { _ in
        predicateCalls.increment()
        return false
      },
      initialValue: nil
    )
    store.context.operationDelayer = delayer
    let recorder = OperationEventRecorder<State>()
    #expect(try await store.fetch(handler: recorder.queryEventHandler()) == 1)
    #expect(
      recorder.events == [
        .stateChanged, .runStarted, .resultReceived(.success(1)), .runEnded, .stateChanged,
      ]
    )
    #expect(predicateCalls.value == 1)
    #expect(delayer.delays.isEmpty)
  }

  @Test(arguments: [1, 2, 4])
  func `Stops At Max Count Without Asking The Predicate Again`(maxCount: Int) async throws {
    let delayer = RecordingDelayer()
    let predicateCalls = CallCounter()
    let query = PollingQuery()
    let runner = OperationRunner(
      operation: query.repeating(every: .seconds(2), maxCount: maxCount) { _ in
        predicateCalls.increment()
        return true
      }
      .delayer(delayer)
    )
    #expect(try await runner.run() == maxCount)
    #expect(query.counter.value == maxCount)
    #expect(predicateCalls.value == maxCount - 1)
    #expect(delayer.delays == Array(repeating: .seconds(2), count: maxCount - 1))
  }

  @Test func `Failed Polls Are Yielded And The Loop Goes On`() async throws {
    let query = PollingQuery(failingRuns: [1])
    let store = OperationStore.detached(
      query: query.repeating(every: .seconds(1)) { result in
        guard case .success(let value) = result else { return true }
        return value < 2
      },
      initialValue: nil
    )
    store.context.operationDelayer = RecordingDelayer()
    let recorder = OperationEventRecorder<State>()
    #expect(try await store.fetch(handler: recorder.queryEventHandler()) == 2)
    #expect(
      recorder.events == [
        .stateChanged, .runStarted, .resultReceived(.failure(TestError())), .stateChanged,
        .resultReceived(.success(2)), .runEnded, .stateChanged,
      ]
    )
  }

  @Test func `The Last Poll's Error Is Thrown`() async {
    let query = PollingQuery(failingRuns: [2])
    let runner = OperationRunner(
      operation: query.repeating(every: .seconds(1)) { result in
        (try? result.get()) != nil
      }
      .delayer(.noDelay)
    )
    await #expect(throws: TestError()) { try await runner.run() }
    #expect(query.counter.value == 2)
  }

  @Test func `Cancellation During The Wait Ends With The Last Poll`() async throws {
    let delayer = ManualDelayer()
    let query = PollingQuery()
    let runner = OperationRunner(
      operation: query.repeating(every: .seconds(5)) { _ in true }.delayer(delayer)
    )
    let task = Task { try await runner.run() }
    await delayer.waitForDelays(count: 1)
    task.cancel()
    #expect(try await task.value == 1)
    #expect(query.counter.value == 1)
    #expect(delayer.cancelledCount == 1)
  }

  @Test func `Polls Continue Each Time The Delayer Is Resumed`() async throws {
    let delayer = ManualDelayer()
    let query = PollingQuery()
    let runner = OperationRunner(
      operation: query.repeating(every: .seconds(5), maxCount: 3) { _ in true }.delayer(delayer)
    )
    let task = Task { try await runner.run() }
    await delayer.waitForDelays(count: 1)
    #expect(query.counter.value == 1)
    delayer.resumeNext()
    await delayer.waitForDelays(count: 2)
    #expect(query.counter.value == 2)
    delayer.resumeNext()
    #expect(try await task.value == 3)
  }

  @Test(arguments: [OperationDuration.zero, .seconds(-1)])
  func `Non Positive Intervals Do Not Wait`(interval: OperationDuration) async throws {
    let delayer = RecordingDelayer()
    let query = PollingQuery()
    let runner = OperationRunner(
      operation: query.repeating(every: interval, maxCount: 3) { _ in true }.delayer(delayer)
    )
    #expect(try await runner.run() == 3)
    #expect(delayer.delays.isEmpty)
  }

  @Test func `Duration Overload Waits The Same Interval`() async throws {
    let delayer = RecordingDelayer()
    let runner = OperationRunner(
      operation: PollingQuery().repeating(every: Duration.milliseconds(500), maxCount: 2) { _ in
        true
      }
      .delayer(delayer)
    )
    #expect(try await runner.run() == 2)
    #expect(delayer.delays == [.milliseconds(500)])
  }

  @Test func `Max Count Below One Is Reported And Runs Once`() async throws {
    let query = PollingQuery()
    var operation: ModifiedOperation<PollingQuery, _RepeatingModifier<PollingQuery>>?
    withKnownIssue {
      operation = query.repeating(every: .seconds(1), maxCount: 0) { _ in true }
    } matching: { issue in
      issue.comments.contains(
        Comment(rawValue: OperationWarning.pollingMaxCountNotPositive(0).message)
      )
    }
    let runner = OperationRunner(operation: try #require(operation).delayer(.noDelay))
    #expect(try await runner.run() == 1)
    #expect(query.counter.value == 1)
  }
}

/// A query that returns how many times it has run, failing on the runs in ``failingRuns``.
private struct PollingQuery: QueryRequest {
  let counter = CallCounter()
  var failingRuns = Set<Int>()

  var path: OperationPath {
    ["polling-query", ObjectIdentifier(self.counter)]
  }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    let run = self.counter.increment()
    if self.failingRuns.contains(run) {
      throw TestError()
    }
    return run
  }
}
