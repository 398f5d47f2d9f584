import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationSynchronization
import Testing

@Suite struct `BlockCondition tests` {
  @Test func `A True Block Lets The Node Run`() async throws {
    let graph = WorkGraph()
    let node = try graph.add(conditions: [BlockCondition { true }]) { _ in 1 }
    await graph.run()
    #expect(try graph.result(of: node)?.get() == 1)
  }

  @Test func `A False Block Keeps The Node From Running With An Error`() async throws {
    let graph = WorkGraph()
    let ran = Lock(false)
    let node = try graph.add(conditions: [BlockCondition { false }]) { _ in
      ran.withLock { $0 = true }
    }
    await graph.run()
    let outcome = try #require(graph.report(of: node).outcome)
    #expect(outcome.isNotExecuted)
    #expect(outcome.errors.count == 1)
    #expect(outcome.errors.first as? BlockConditionFailed == BlockConditionFailed())
    #expect(!ran.withLock { $0 })
  }

  @Test func `A Throwing Block Keeps The Node From Running With The Thrown Error`() async throws {
    let graph = WorkGraph()
    let node = try graph.add(conditions: [BlockCondition { throw GraphTestError(code: 2) }]) { _ in
      1
    }
    await graph.run()
    #expect(graph.report(of: node).outcome?.errors.testCodes == [2])
    #expect(graph.report(of: node).outcome?.isNotExecuted == true)
  }

  @Test func `Many Nodes With A Failing Block Condition All Finish Without Running`() async throws {
    let graph = WorkGraph()
    let ran = Lock(0)
    let finished = Lock(0)
    let observer = GraphBlockObserver(didFinish: { _, _ in finished.withLock { $0 += 1 } })
    for _ in 0..<8_500 {
      try graph.add(conditions: [BlockCondition { false }], observers: [observer]) { _ in
        ran.withLock { $0 += 1 }
      }
    }
    let report = await graph.run()
    #expect(ran.withLock { $0 } == 0)
    #expect(finished.withLock { $0 } == 8_500)
    #expect(report.notExecutedCount == 8_500)
  }

  @Test func `Every Condition Of A Node Is Evaluated Concurrently And Every Failure Kept`()
    async throws
  {
    let arrivals = Latch()
    // NB: Each condition waits until both have started, so evaluating them one after the other
    // would never end.
    let meeting = BlockCondition(name: "Meeting") {
      arrivals.arrive()
      await arrivals.wait(for: 2)
      return false
    }
    let graph = WorkGraph()
    let node = try graph.add(conditions: [meeting, meeting]) { _ in 1 }
    await graph.run()
    #expect(graph.report(of: node).outcome?.errors.count == 2)
    #expect(BlockCondition { true }.name == "Block Condition")
  }

  @Test func `Conditions Are Evaluated After The Node's Dependencies Finished`() async throws {
    let log = EventLog()
    let graph = WorkGraph()
    let dependency = try graph.add { _ in log.append("dependency") }
    try graph.add(
      after: [dependency],
      conditions: [
        BlockCondition {
          log.append("condition"); return true
        }
      ]
    ) { _ in log.append("node") }
    await graph.run()
    #expect(log.events == ["dependency", "condition", "node"])
  }
}
