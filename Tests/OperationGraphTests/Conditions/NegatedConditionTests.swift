import OperationGraph
import OperationGraphTestFixtures
import Testing

@Suite struct `NegatedCondition tests` {
  @Test func `A Satisfied Inner Condition Keeps The Node From Running`() async throws {
    let graph = WorkGraph()
    let node = try graph.add(conditions: [NegatedCondition(BlockCondition { true })]) { _ in 1 }
    await graph.run()
    let outcome = try #require(graph.report(of: node).outcome)
    #expect(outcome.isNotExecuted)
    #expect(outcome.errors.count == 1)
    #expect(
      outcome.errors.first as? NegatedConditionSatisfied
        == NegatedConditionSatisfied(name: "Block Condition")
    )
  }

  @Test func `A Failed Inner Condition Lets The Node Run`() async throws {
    let graph = WorkGraph()
    let node = try graph.add(conditions: [NegatedCondition(BlockCondition { false })]) { _ in 1 }
    await graph.run()
    #expect(try graph.result(of: node)?.get() == 1)
    #expect(graph.report(of: node).outcome?.isCancelled == false)
  }

  @Test func `Its Name Exclusivity And Dependency Come From The Inner Condition`() {
    #expect(NegatedCondition(NoFailedDependenciesCondition()).name == "Not<No Failed Dependencies>")
    #expect(NegatedCondition(NoFailedDependenciesCondition()).mutualExclusionCategory == nil)
    #expect(
      NegatedCondition(MutuallyExclusive<Alert>()).mutualExclusionCategory
        == "MutuallyExclusive<Alert>"
    )
    #expect(NegatedCondition(DependencyCondition(log: EventLog(), label: "x")).dependency != nil)
  }
}
