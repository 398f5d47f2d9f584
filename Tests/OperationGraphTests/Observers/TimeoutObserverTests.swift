import Foundation
import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationSynchronization
import OperationTestSupport
import Testing

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
    #expect(!returned.isOpen)
    // NB: The work returns late; its result is discarded.
    stuck.open()
    await returned.wait()
    #expect(throws: OperationTimeoutError(duration: .seconds(2))) {
      try graph.result(of: node)?.get()
    }
    #expect(graph.report(of: node).outcome?.isFailed == true)
  }

  @Test func `A Node Ended At Its Deadline Holds Its Mutual Exclusion Lock Until Its Work Returns`()
    async throws
  {
    let delayer = ManualDelayer()
    var context = OperationContext()
    context.operationDelayer = delayer
    let category = "TimeoutObserverTests.heldUntilReturn"
    let lock = "MutuallyExclusive<\(category)>"
    let stuck = Gate()
    let started = Gate()
    let ended = Gate()
    let events = EventLog()
    let graph = WorkGraph(context: context)
    let node = try graph.add(
      conditions: [MutuallyExclusive(category: category)],
      observers: [
        TimeoutObserver(timeout: .seconds(2)),
        GraphBlockObserver(didFinish: { _, _ in ended.open() }),
      ]
    ) { _ -> Int in
      started.open()
      // NB: Ignores cancellation, as a stuck await would.
      await stuck.wait()
      events.append("stuck work returned")
      return 1
    }
    let run = Task { await graph.run() }
    await started.wait()
    await delayer.waitForDelays(count: 1)
    delayer.resumeAll()
    await ended.wait()
    // NB: The answer comes at the deadline; the lock stays with the work that still runs.
    #expect(graph.report(of: node).outcome?.isFailed == true)
    let isHeldAfterDeadline = ExclusivityLocks.shared.isHeld(lock)
    #expect(isHeldAfterDeadline)
    guard isHeldAfterDeadline else {
      stuck.open()
      return
    }

    let other = WorkGraph()
    let sameCategory = try other.add(conditions: [MutuallyExclusive(category: category)]) { _ in
      events.append("same category ran")
      return 2
    }
    let otherRun = Task { await other.run() }
    await ExclusivityLocks.shared.waitForWaiters(lock, count: 1)
    #expect(events.events.isEmpty)
    stuck.open()
    _ = await run.value
    _ = await otherRun.value
    #expect(events.events == ["stuck work returned", "same category ran"])
    #expect(try other.result(of: sameCategory)?.get() == 2)
    #expect(!ExclusivityLocks.shared.isHeld(lock))
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

  private func waitForCancelledTimer(_ delayer: ManualDelayer) async {
    // NB: The timer is cancelled in the did-finish observer, which returned before the run did.
    #expect(delayer.cancelledCount == 1)
  }
}
