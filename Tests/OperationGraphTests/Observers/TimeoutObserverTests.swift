import OperationCore
import OperationGraph
import OperationTestSupport
import Testing

@Suite struct `TimeoutObserver tests` {
  @Test func `A Node That Runs Too Long Is Cancelled With One Timeout Error`() async throws {
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
    #expect(outcome.isCancelled)
    #expect(outcome.errors.count == 1)
    #expect(
      outcome.errors.first as? OperationTimeoutError == OperationTimeoutError(duration: .seconds(1))
    )
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
