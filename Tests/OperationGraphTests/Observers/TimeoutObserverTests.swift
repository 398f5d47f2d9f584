import Foundation
import OperationCore
import OperationGraph
import OperationTestSupport
import Testing
import OperationSynchronization

@Suite(.timeLimit(.minutes(1))) struct `TimeoutObserver tests` {
  @Test func `A Node That Runs Too Long Fails With One Timeout Error`() async throws {
    let delayer = ManualDelayer()
    var context = OperationContext()
    context.operationDelayer = delayer
    let graph = WorkGraph(context: context)
    let node = try graph.add(observers: [TimeoutObserver(timeout: .seconds(1))]) { _ in
      await suspendUntilCancelled()
    }
    let run = Task { await graph.run() }
    await delayer.waitForDelays(count: 1)
    #expect(delayer.delays == [.seconds(1)])
    delayer.resumeAll()
    let report = await run.value
    let outcome = try #require(report[node].outcome)
    #expect(outcome.isFailed)
    #expect(outcome.errors.count == 1)
    #expect(
      outcome.errors.first as? OperationTimeoutError == OperationTimeoutError(duration: .seconds(1))
    )
  }

  @Test func `A Node Whose Work Ignores Cancellation Ends At The Deadline And Frees Its Slot`()
    async throws
  {
    let delayer = ManualDelayer()
    var context = OperationContext()
    context.operationDelayer = delayer
    let graph = WorkGraph(maxConcurrentNodes: 1, context: context)
    let stuck = Gate()
    let returned = Gate()
    let events = EventLog()
    let category = MutuallyExclusive(category: "TimeoutObserverTests.stuck")
    let node = try graph.add(
      conditions: [category],
      observers: [
        TimeoutObserver(timeout: .seconds(2)),
        GraphBlockObserver(
          willFinish: { _, outcome in events.append("willFinish \(outcome.isFailed)") },
          didFinish: { _, outcome in events.append("didFinish \(outcome.isFailed)") }
        ),
      ]
    ) { _ -> Int in
      // NB: Ignores cancellation, as a stuck await would.
      await stuck.wait()
      returned.open()
      return 1
    }
    let dependent = try graph.add(after: [node]) { context in
      (try? context.value(of: node)) == nil
    }
    let sameCategory = try graph.add(conditions: [category]) { _ in 3 }
    let run = Task { await graph.run() }
    await delayer.waitForDelays(count: 1)
    #expect(graph.report(of: node).status.isRunning)
    delayer.resumeAll()
    // NB: On a graph whose timeout cannot end the node, this would wait for ever; the time limit
    // cancels the test, and the stuck work is let go so that the test fails instead of hanging.
    let report = await withTaskCancellationHandler {
      await run.value
    } onCancel: {
      stuck.open()
    }
    let outcome = try #require(report[node].outcome)
    #expect(outcome.isFailed)
    #expect(
      outcome.errors.map { $0 as? OperationTimeoutError }
        == [OperationTimeoutError(duration: .seconds(2))]
    )
    #expect(events.events == ["willFinish true", "didFinish true"])
    #expect(try graph.result(of: dependent)?.get() == true)
    #expect(try graph.result(of: sameCategory)?.get() == 3)
    #expect(!returned.isOpen)
    // NB: The work returns late; its result is discarded.
    stuck.open()
    await returned.wait()
    #expect(throws: OperationTimeoutError(duration: .seconds(2))) {
      try graph.result(of: node)?.get()
    }
    #expect(graph.report(of: node).outcome?.isFailed == true)
  }

  @Test func `A Node That Finishes In Time Is Never Cancelled And Its Timer Stops`() async throws {
    let delayer = ManualDelayer()
    var context = OperationContext()
    context.operationDelayer = delayer
    let graph = WorkGraph(context: context)
    let gate = Gate()
    let node = try graph.add(observers: [TimeoutObserver(timeout: .seconds(5))]) { _ in
      await gate.wait()
      return 1
    }
    let run = Task { await graph.run() }
    await delayer.waitForDelays(count: 1)
    gate.open()
    let report = await run.value
    #expect(report[node].outcome?.isSucceeded == true)
    await waitForCancelledTimer(delayer)
    #expect(delayer.resumeAll() == 0)
    #expect(try graph.result(of: node)?.get() == 1)
  }

  // MARK: - Operations

  @Test func `An Operation Whose Work Never Finishes Is Finished At The Deadline`() async throws {
    let delayer = ManualDelayer()
    let operation = StuckOperation()
    operation.context.operationDelayer = delayer
    operation.addObserver(TimeoutObserver(timeout: 3))
    let next = TestOperation()
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    queue.addOperation(operation)
    queue.addOperation(next)
    await operation.executed.wait()
    await delayer.waitForDelays(count: 1)
    delayer.resumeAll()
    // NB: On an operation that a timeout cannot finish, this would wait for ever; the time limit
    // cancels the test, which then finishes the operation itself, and fails.
    let error = await withTaskCancellationHandler {
      await #expect(throws: OperationErrors.self) { try await operation.untilFinished() }
    } onCancel: {
      operation.finishLate(with: TestError(id: 1))
    }
    #expect(
      error?.errors.map { $0 as? OperationTimeoutError } == [
        OperationTimeoutError(duration: .seconds(3))
      ]
    )
    #expect(operation.isFinished && !operation.isExecuting)
    #expect(operation.isCancelled)
    // NB: The slot is free: the next operation runs.
    try await next.untilFinished()
    #expect(next.didExecute)
    operation.finishLate(with: TestError(id: 2))
    #expect(
      operation.errors.map { $0 as? OperationTimeoutError } == [
        OperationTimeoutError(duration: .seconds(3))
      ]
    )
  }

  @Test func `An Operation Cancelled Before The Deadline But Still Running Is Finished Then`()
    async throws
  {
    let delayer = ManualDelayer()
    let operation = StuckOperation()
    operation.context.operationDelayer = delayer
    let cancellations = Lock(0)
    operation.addObserver(BlockObserver(didCancel: { _ in cancellations.withLock { $0 += 1 } }))
    operation.addObserver(TimeoutObserver(timeout: 3))
    OperationQueue().addOperation(operation)
    await operation.executed.wait()
    await delayer.waitForDelays(count: 1)
    operation.cancel()
    #expect(!operation.isFinished)
    delayer.resumeAll()
    await withTaskCancellationHandler {
      try? await operation.untilFinished()
    } onCancel: {
      operation.finishLate(with: TestError(id: 1))
    }
    #expect(operation.isFinished)
    #expect(
      operation.errors.map { $0 as? OperationTimeoutError } == [
        OperationTimeoutError(duration: .seconds(3))
      ]
    )
    #expect(cancellations.withLock { $0 } == 1)
  }

  private func waitForCancelledTimer(_ delayer: ManualDelayer) async {
    // NB: The timer is cancelled in the did-finish observer, which returned before the run did.
    #expect(delayer.cancelledCount == 1)
  }
}
