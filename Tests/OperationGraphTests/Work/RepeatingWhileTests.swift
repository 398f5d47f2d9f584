@_spi(Warnings) import OperationCore
@_spi(Warnings) import OperationGraph
import OperationGraphTestFixtures
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `RepeatingWhile tests` {
  // MARK: - Counts (Operations RepeatedOperationTests)

  @Test func `Repeating While The Count Is Below Five Runs Five Times`() async throws {
    let query = WorkScriptedQuery.failing(untilRun: 1)
    let runner = OperationRunner(operation: query.repeating { count in count < 5 })
    #expect(try await runner.run() == 5)
    #expect(query.log.runs == 5)
  }

  @Test(arguments: [WaitStrategy.none, .fixed(.seconds(1))])
  func `A Max Count Of Two Stops After Two Runs`(wait: WaitStrategy) async throws {
    let query = WorkScriptedQuery.failing(untilRun: 1)
    let delayer = RecordingDelayer()
    let yields = WorkYields<Int, WorkError>()
    let runner = OperationRunner(
      operation: query.repeating(maxCount: 2, waiting: wait) { _ in true }.delayer(delayer)
    )
    #expect(try await runner.run(with: yields.continuation) == 2)
    #expect(query.log.runs == 2)
    #expect(yields.all.allSatisfy { (try? $0.get()) != nil })
    #expect(delayer.delays == [wait(1)].filter { $0 > .zero })
  }

  @Test func `The Predicate Is Not Asked After The Last Allowed Run`() async throws {
    let counts = WorkRecorder<Int>()
    let runner = OperationRunner(
      operation: WorkScriptedQuery.failing(untilRun: 1).repeating(maxCount: 3) { count in
        counts.append(count)
        return true
      }
    )
    #expect(try await runner.run() == 3)
    #expect(counts.all == [1, 2])
  }

  @Test func `Stopping After Three Errors Runs Three Times`() async {
    let query = WorkScriptedQuery.failing(untilRun: nil)
    let runner = OperationRunner(
      operation: query.repeating { count, outcome in
        guard case .failure = outcome else { return false }
        return count < 3
      }
    )
    await #expect(throws: WorkError(run: 3)) { try await runner.run() }
    #expect(query.log.runs == 3)
  }

  @Test func `Failing Four Times Then Succeeding Runs Five Times And Yields The Four Errors`()
    async throws
  {
    let query = WorkScriptedQuery.failing(untilRun: 5)
    let yields = WorkYields<Int, WorkError>()
    let runner = OperationRunner(
      operation: query.repeating { _, outcome in
        guard case .failure = outcome else { return false }
        return true
      }
    )
    #expect(try await runner.run(with: yields.continuation) == 5)
    #expect(query.log.runs == 5)
    let errors = yields.all.compactMap { result -> WorkError? in
      guard case .failure(let error) = result else { return nil }
      return error
    }
    #expect(errors == (1...4).map { WorkError(run: $0) })
  }

  @Test func `Waits Follow The Wait Strategy By Run Count`() async throws {
    let delayer = RecordingDelayer()
    let runner = OperationRunner(
      operation: WorkScriptedQuery.failing(untilRun: 1)
        .repeating(maxCount: 4, waiting: .incrementing(from: .seconds(1), by: .seconds(1))) { _ in
          true
        }
        .delayer(delayer)
    )
    #expect(try await runner.run() == 4)
    #expect(delayer.delays == [.seconds(1), .seconds(2), .seconds(3)])
  }

  @Test func `A Max Count Below One Is Reported And Runs Once`() async throws {
    let query = WorkScriptedQuery.failing(untilRun: 1)
    var runner:
      OperationRunner<
        ModifiedOperation<WorkScriptedQuery<Int>, _RepeatingModifier<WorkScriptedQuery<Int>>>
      >?
    withKnownIssue {
      runner = OperationRunner(operation: query.repeating(maxCount: 0) { _ in true })
    } matching: { issue in
      issue.comments.contains(
        Comment(rawValue: OperationWarning.repeatingMaxCountNotPositive(0).message)
      )
    }
    #expect(try await runner?.run() == 1)
    #expect(query.log.runs == 1)
  }

  // MARK: - The core's polling

  @Test func `A Fixed Wait And A Predicate Of The Outcome Match The Core's Polling`() async {
    let shouldContinue: @Sendable (Result<Int, WorkError>) -> Bool = { outcome in
      (try? outcome.get()) ?? 0 < 4
    }
    let script: @Sendable (Int) -> Result<Int, WorkError> = { run in
      run.isMultiple(of: 2) ? .failure(WorkError(run: run)) : .success(run)
    }
    let coreDelayer = RecordingDelayer()
    let coreYields = WorkYields<Int, WorkError>()
    let core = OperationRunner(
      operation: WorkScriptedQuery(script)
        .repeating(every: .seconds(3), maxCount: 10, while: shouldContinue)
        .delayer(coreDelayer)
    )
    let ownDelayer = RecordingDelayer()
    let ownYields = WorkYields<Int, WorkError>()
    let own = OperationRunner(
      operation: WorkScriptedQuery(script)
        .repeating(maxCount: 10, waiting: .fixed(.seconds(3))) { _, outcome in
          shouldContinue(outcome)
        }
        .delayer(ownDelayer)
    )
    let coreResult: Result<Int, WorkError>
    do {
      coreResult = .success(try await core.run(with: coreYields.continuation))
    } catch {
      coreResult = .failure(error)
    }
    let ownResult: Result<Int, WorkError>
    do {
      ownResult = .success(try await own.run(with: ownYields.continuation))
    } catch {
      ownResult = .failure(error)
    }
    #expect(ownResult == coreResult)
    #expect(ownYields.all == coreYields.all)
    #expect(ownDelayer.delays == coreDelayer.delays)
    #expect(ownResult == .success(5))
  }

  @Test func `A Store Holds A Repeated Query`() async throws {
    let query = WorkScriptedQuery.failing(untilRun: 1)
    let repeated = query.repeating(maxCount: 3) { _ in true }
    #expect(repeated.path == query.path)
    let store = OperationStore.detached(query: repeated, initialValue: nil)
    #expect(try await store.fetch() == 3)
    #expect(store.currentValue == 3)
  }

  // MARK: - Cancellation

  @Test func `Cancelling The Task Cancels The Run In Progress And Stops`() async {
    let request = WorkHeldRequest()
    let runner = OperationRunner(operation: request.repeating { _ in true })
    let task = Task { try await runner.run() }
    let result = await request.cancelMidRun(task)
    #expect(throws: CancellationError.self) { try result.get() }
    #expect(request.log.runs == 1)
    #expect(request.log.sawCancellation == [true])
  }

  @Test func `Cancellation During A Wait Ends With The Latest Outcome`() async throws {
    let query = WorkScriptedQuery.failing(untilRun: 1)
    let delayer = ManualDelayer()
    let runner = OperationRunner(
      operation: query.repeating(waiting: .fixed(.seconds(5))) { _ in true }.delayer(delayer)
    )
    let task = Task { try await runner.run() }
    await delayer.waitForDelays(count: 1)
    #expect(delayer.resumeNext())
    await delayer.waitForDelays(count: 2)
    task.cancel()
    #expect(try await task.value == 2)
    #expect(query.log.runs == 2)
  }
}
