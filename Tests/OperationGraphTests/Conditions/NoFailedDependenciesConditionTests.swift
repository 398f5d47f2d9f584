import OperationGraph
import OperationGraphTestFixtures
import Testing

@Suite struct `NoFailedDependenciesCondition tests` {
  @Test func `A Node Without Dependencies Or With Successful Ones Runs`() async throws {
    let graph = WorkGraph()
    let alone = try graph.add(conditions: [NoFailedDependenciesCondition()]) { _ in 1 }
    let after = try graph.add(after: [alone], conditions: [NoFailedDependenciesCondition()]) { _ in
      2
    }
    await graph.run()
    #expect(try graph.result(of: alone)?.get() == 1)
    #expect(try graph.result(of: after)?.get() == 2)
  }

  @Test func `A Cancelled Dependency Keeps The Node From Running`() async throws {
    let graph = WorkGraph()
    let cancelled = try graph.add(name: "cancelled") { _ in 1 }
    let fine = try graph.add(name: "fine") { _ in 2 }
    let node = try graph.add(
      after: [cancelled, fine],
      conditions: [NoFailedDependenciesCondition()]
    ) {
      _ in 3
    }
    graph.cancel(cancelled)
    await graph.run()
    let outcome = try #require(graph.report(of: node).outcome)
    #expect(outcome.isNotExecuted)
    #expect(outcome.errors.count == 1)
    #expect(outcome.errors.first as? NoFailedDependenciesError == .cancelledDependencies)
  }

  @Test func `A Cancelled Dependency Is Checked Before A Failed One`() async throws {
    let graph = WorkGraph()
    let cancelled = try graph.add { _ in 1 }
    let failed = try graph.add { _ in throw GraphTestError() }
    let node = try graph.add(
      after: [failed, cancelled],
      conditions: [NoFailedDependenciesCondition()]
    ) { _ in 3 }
    graph.cancel(cancelled)
    await graph.run()
    #expect(
      graph.report(of: node).outcome?.errors.first as? NoFailedDependenciesError
        == .cancelledDependencies
    )
  }

  @Test func `A Failed Dependency Keeps The Node From Running With One Error`() async throws {
    let graph = WorkGraph()
    let failed = try graph.add { _ in throw GraphTestError() }
    let node = try graph.add(after: [failed], conditions: [NoFailedDependenciesCondition()]) { _ in
      1
    }
    await graph.run()
    let outcome = try #require(graph.report(of: node).outcome)
    #expect(outcome.isNotExecuted)
    #expect(outcome.errors.count == 1)
    #expect(outcome.errors.first as? NoFailedDependenciesError == .failedDependencies)
  }

  @Test func `Ignoring Cancellations Cancels The Node Quietly`() async throws {
    let graph = WorkGraph()
    let cancelled = try graph.add { _ in 1 }
    let node = try graph.add(
      after: [cancelled],
      conditions: [NoFailedDependenciesCondition(ignoringCancellations: true)]
    ) { _ in 2 }
    graph.cancel(cancelled)
    await graph.run()
    let outcome = try #require(graph.report(of: node).outcome)
    #expect(outcome.isCancelled)
    #expect(outcome.errors.isEmpty)
  }

  @Test func `Its Errors Are Equatable And Named`() {
    #expect(NoFailedDependenciesError.cancelledDependencies != .failedDependencies)
    #expect(NoFailedDependenciesCondition().name == "No Failed Dependencies")
  }

  @Test func `Ordinary Dependencies Run Before Condition Dependencies`() async throws {
    let log = EventLog()
    let graph = WorkGraph(maxConcurrentNodes: 4)
    let first = try graph.add { _ in log.append("first") }
    let second = try graph.add { _ in log.append("second") }
    let node = try graph.add(
      after: [first, second],
      conditions: [
        DependencyCondition(log: log, label: "x"), DependencyCondition(log: log, label: "y"),
      ]
    ) { _ in log.append("node") }
    await graph.run()
    let events = log.events
    for condition in ["x dependency", "y dependency"] {
      #expect(events.firstIndex(of: condition)! > events.firstIndex(of: "first")!)
      #expect(events.firstIndex(of: condition)! > events.firstIndex(of: "second")!)
    }
    #expect(events.last == "node")
    // NB: The node waits for its two dependencies and the two conditions' dependencies.
    #expect(graph.report.nodes.count == 5)
    let dependencies = graph.dependencies(of: node)
    #expect(dependencies.count == 4)
    #expect(Array(dependencies.prefix(2)) == [first.id, second.id])
  }
}
