import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationSynchronization
import Testing

@Suite struct `SilentCondition tests` {
  @Test func `Its Name Wraps The Inner Name And Its Exclusivity Is The Inner One`() {
    #expect(SilentCondition(BlockCondition { true }).name == "Silent<Block Condition>")
    #expect(
      SilentCondition(MutuallyExclusive<Alert>()).mutualExclusionCategory
        == "MutuallyExclusive<Alert>"
    )
  }

  @Test func `It Suppresses The Inner Dependency And Evaluates The Inner Condition`() async throws {
    let log = EventLog()
    let graph = WorkGraph()
    let loud = try graph.add(conditions: [DependencyCondition(log: log, label: "loud")]) { _ in 1 }
    let silent = try graph.add(
      conditions: [SilentCondition(DependencyCondition(log: log, label: "silent"))]
    ) { _ in 2 }
    let report = await graph.run()
    #expect(log.events.contains("loud dependency"))
    #expect(!log.events.contains("silent dependency"))
    #expect(log.events.filter { $0.hasSuffix("evaluated") }.count == 2)
    #expect(report[loud].outcome?.isSucceeded == true)
    #expect(report[silent].outcome?.isSucceeded == true)
    #expect(report.nodes.count == 3)
  }

  @Test func `A Condition's Dependency Can Be Work Whose Value Is Discarded`() async throws {
    let log = EventLog()
    let counting = GraphWork(name: "Count") { _ -> Int in
      log.append("counted")
      return 3
    }
    let graph = WorkGraph()
    let node = try graph.add(
      conditions: [WorkDependencyCondition(dependency: counting.discardingValue())]
    ) { _ in log.append("node") }
    await graph.run()
    #expect(log.events == ["counted", "node"])
    #expect(graph.dependencies(of: node).count == 1)
    #expect(graph.report(of: graph.dependencies(of: node)[0]).name == "Count")
  }
}

extension `SilentCondition tests` {
  @Test(.timeLimit(.minutes(1)))
  func `A Condition's Properties Are Read With No Lock Of The Graph Held`() async throws {
    // NB: Each property reads the graph, which takes the graph's lock: read under that lock, as
    // it once was, the add would deadlock.
    let graph = WorkGraph()
    let condition = GraphReadingCondition(graph: graph)
    let node = try graph.add(conditions: [condition]) { _ in 1 }
    await graph.run()
    #expect(try graph.result(of: node)?.get() == 1)
    #expect(condition.reads.withLock { $0 } >= 3)
  }
}

/// A condition whose properties read the graph it belongs to.
private final class GraphReadingCondition: GraphCondition {
  let graph: WorkGraph
  let reads = Lock(0)

  init(graph: WorkGraph) {
    self.graph = graph
  }

  private func read() {
    _ = self.graph.nodeCount
    self.reads.withLock { $0 += 1 }
  }

  var name: String {
    self.read()
    return "Graph Reading"
  }

  var mutualExclusionCategory: String? {
    self.read()
    return nil
  }

  var dependency: GraphWork<Void>? {
    self.read()
    return GraphWork { _ in }
  }

  func evaluate(in context: ConditionContext) async -> ConditionResult {
    .satisfied
  }
}

/// A condition whose dependency is the work it is given.
private struct WorkDependencyCondition: GraphCondition {
  let dependency: GraphWork<Void>?
  var name: String { "Work Dependency" }

  func evaluate(in context: ConditionContext) async -> ConditionResult {
    .satisfied
  }
}
