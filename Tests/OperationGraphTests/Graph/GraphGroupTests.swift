import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `GraphGroup tests` {
  @Test func `A Group Finishes After Every Child Ran`() async throws {
    let counter = Lock(0)
    let graph = WorkGraph()
    let group = try graph.addGroup(name: "Group") { group in
      for _ in 0..<5 {
        try group.add { _ in counter.withLock { $0 += 1 } }
      }
    }
    let after = try graph.add(after: [group]) { _ in counter.withLock { $0 } }
    let report = await graph.run()
    #expect(report[group].outcome?.isSucceeded == true)
    #expect(try graph.result(of: after)?.get() == 5)
    #expect(group.graph.report.succeededCount == 5)
  }

  @Test func `A Child Added To A Running Group Runs Before The Group Finishes`() async throws {
    let graph = WorkGraph()
    let gate = Gate()
    let started = Latch()
    let group = try graph.addGroup { group in
      try group.add { _ in
        started.arrive()
        await gate.wait()
      }
    }
    let run = Task { await graph.run() }
    await started.wait(for: 1)
    let late = try group.graph.add { _ in "late" }
    gate.open()
    let report = await run.value
    #expect(try group.graph.result(of: late)?.get() == "late")
    #expect(report[group].finishedAt! >= group.graph.report(of: late).finishedAt!)
  }

  @Test func `A Child's Work Produces Nodes Into The Group`() async throws {
    let graph = WorkGraph()
    let group = try graph.addGroup { group in
      try group.add { context in try context.produce(GraphWork { _ in 1 }) }
    }
    await graph.run()
    #expect(group.graph.report.nodes.count == 2)
    #expect(group.graph.report.succeededCount == 2)
  }

  @Test func `A Group Aggregates The Errors Of Ten Thousand Failing Children`() async throws {
    let graph = WorkGraph()
    let group = try graph.addGroup { group in
      for code in 0..<10_000 {
        try group.add { _ in throw GraphTestError(code: code) }
      }
    }
    let report = await graph.run()
    let outcome = try #require(report[group].outcome)
    #expect(outcome.isFailed)
    #expect(outcome.errors.count == 10_000)
    #expect(outcome.errors.testCodes == Array(0..<10_000))
  }

  @Test(arguments: [2, 3])
  func `A Failing Grandchild Counts Once However Deep The Groups Nest`(depth: Int) async throws {
    func nest(_ graph: WorkGraph, levels: Int) throws {
      if levels == 0 {
        try graph.add { _ in throw GraphTestError(code: 9) }
        try graph.add { _ in 1 }
      } else {
        try graph.addGroup { group in try nest(group, levels: levels - 1) }
      }
    }
    let graph = WorkGraph()
    try nest(graph, levels: depth)
    let report = await graph.run()
    #expect(report.errors.count == 1)
    #expect(report.errors.testCodes == [9])
  }

  @Test func `Cancelling A Group Cancels Its Unfinished Children Only`() async throws {
    let graph = WorkGraph()
    let slowStarted = Latch()
    let group = try graph.addGroup { group in
      let fast = try group.add(name: "fast") { _ in 1 }
      try group.add(name: "slow", after: [fast]) { _ in
        slowStarted.arrive()
        await suspendUntilCancelled()
      }
    }
    let run = Task { await graph.run() }
    await slowStarted.wait(for: 1)
    graph.cancel(group)
    let report = await run.value
    #expect(report[group].outcome?.isCancelled == true)
    let children = group.graph.report
    #expect(children.nodes[0].outcome?.isSucceeded == true)
    #expect(children.nodes[1].outcome?.isCancelled == true)
  }

  @Test func `Cancelling A Group With Errors Cancels Its Children With Them`() async throws {
    let graph = WorkGraph()
    let started = Latch()
    let group = try graph.addGroup { group in
      try group.add { _ in
        started.arrive()
        await suspendUntilCancelled()
      }
    }
    let run = Task { await graph.run() }
    await started.wait(for: 1)
    graph.cancel(group, with: [GraphTestError(code: 4)])
    let report = await run.value
    #expect(report[group].outcome?.errors.testCodes == [4])
    let childErrors = try #require(group.graph.report.nodes[0].outcome?.errors)
    let parentError = try #require(childErrors.first as? GraphParentCancelledError)
    #expect(childErrors.count == 1)
    #expect(parentError.errors.testCodes == [4])
  }

  @Test func `A Group Cancelled Before It Starts Cancels Every Child`() async throws {
    let graph = WorkGraph()
    let group = try graph.addGroup { group in
      try group.add { _ in 1 }
      try group.add { _ in 2 }
    }
    graph.cancel(group)
    await graph.run()
    #expect(group.graph.isFinished)
    #expect(group.graph.report.cancelledCount == 2)
  }

  @Test func `A Group Dependency With A Failed Child Fails The No Failed Dependencies Condition`()
    async throws
  {
    let graph = WorkGraph()
    let group = try graph.addGroup { group in
      try group.add { _ in throw GraphTestError() }
    }
    let dependent = try graph.add(after: [group], conditions: [NoFailedDependenciesCondition()]) {
      _ in 1
    }
    let report = await graph.run()
    #expect(report[dependent].outcome?.isNotExecuted == true)
    #expect(report[dependent].outcome?.errors.count == 1)
  }

  @Test func `A Group's Children Have Their Conditions Evaluated`() async throws {
    let graph = WorkGraph()
    let group = try graph.addGroup { group in
      try group.add(conditions: [BlockCondition { false }]) { _ in 1 }
    }
    await graph.run()
    #expect(group.graph.report.notExecutedCount == 1)
  }
}

extension `GraphGroup tests` {
  @Test func `A Group Cancelled With Errors Before It Starts Cancels Its Children With Them`()
    async throws
  {
    let graph = WorkGraph()
    let group = try graph.addGroup { group in
      try group.add { _ in 1 }
    }
    graph.cancel(group, with: [GraphTestError(code: 9)])
    let report = await graph.run()
    #expect(report[group].outcome?.errors.testCodes == [9])
    let childErrors = try #require(group.graph.report.nodes[0].outcome?.errors)
    let parentError = try #require(childErrors.first as? GraphParentCancelledError)
    #expect(childErrors.count == 1)
    #expect(parentError.errors.testCodes == [9])
  }
}
