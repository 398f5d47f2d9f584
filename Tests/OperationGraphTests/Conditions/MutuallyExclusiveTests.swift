import OperationCore
import OperationGraphTestFixtures
import OperationTestSupport
import Testing

@testable import OperationGraph

@Suite struct `MutuallyExclusive tests` {
  private enum Printer {}

  @Test func `Alert Presentation Is Exclusive By Its Name And Always Satisfied`() async throws {
    let condition = AlertPresentation()
    #expect(condition.name == "MutuallyExclusive<Alert>")
    #expect(condition.mutualExclusionCategory == "MutuallyExclusive<Alert>")
    #expect(MutuallyExclusive(category: "Sync").name == "MutuallyExclusive<Sync>")
    let graph = WorkGraph()
    let node = try graph.add(conditions: [condition]) { _ in 1 }
    await graph.run()
    #expect(try graph.result(of: node)?.get() == 1)
  }

  @Test func `Nodes Of One Category Never Overlap Across Graphs`() async throws {
    let probe = ConcurrencyProbe(nodeCount: 20)
    let graphs = [WorkGraph(maxConcurrentNodes: 8), WorkGraph(maxConcurrentNodes: 8)]
    for index in 0..<20 {
      try graphs[index % 2].add(conditions: [MutuallyExclusive<Printer>()]) { _ in
        probe.enter(index)
        probe.exit(index)
      }
    }
    async let first = graphs[0].run()
    async let second = graphs[1].run()
    let reports = await [first, second]
    #expect(reports.allSatisfy { $0.succeededCount == 10 })
    #expect(probe.maxRunning == 1)
    #expect(!ExclusivityLocks.shared.isHeld("MutuallyExclusive<Printer>"))
  }

  @Test func `A Node Waits For The Category Held By Another And Runs After It`() async throws {
    let log = EventLog()
    let gate = Gate()
    let started = Latch()
    let graph = WorkGraph(maxConcurrentNodes: 4)
    let name = "Ordered \(#line)"
    let category = MutuallyExclusive(category: name)
    try graph.add(conditions: [category]) { _ in
      log.append("first started")
      started.arrive()
      await gate.wait()
      log.append("first finished")
    }
    let run = Task { await graph.run() }
    await started.wait(for: 1)
    // NB: Added while the first node holds the category, the second one gets a slot and waits
    // for the category.
    let second = try graph.add(conditions: [category]) { _ in log.append("second") }
    await ExclusivityLocks.shared.waitForWaiters(category.name, count: 1)
    #expect(graph.report(of: second).status.isRunning)
    #expect(log.events == ["first started"])
    gate.open()
    _ = await run.value
    #expect(log.events == ["first started", "first finished", "second"])
  }

  @Test func `Exclusive Conditions' Dependencies Run Before Their Nodes`() async throws {
    let log = EventLog()
    let graph = WorkGraph(maxConcurrentNodes: 1)
    let category = "Dependencies \(#line)"
    try graph.add(
      conditions: [DependencyCondition(log: log, label: "a", category: category)]
    ) { _ in log.append("a node") }
    try graph.add(
      conditions: [DependencyCondition(log: log, label: "b", category: category)]
    ) { _ in log.append("b node") }
    await graph.run()
    let events = log.events
    #expect(events.firstIndex(of: "a dependency")! < events.firstIndex(of: "a node")!)
    #expect(events.firstIndex(of: "b dependency")! < events.firstIndex(of: "b node")!)
  }

  @Test func `A Node Cancelled While It Waits For Its Category Gives Up Its Place`() async throws {
    let gate = Gate()
    let started = Latch()
    let graph = WorkGraph(maxConcurrentNodes: 4)
    let name = "Cancelled \(#line)"
    let category = MutuallyExclusive(category: name)
    try graph.add(conditions: [category]) { _ in
      started.arrive()
      await gate.wait()
    }
    let run = Task { await graph.run() }
    await started.wait(for: 1)
    let waiting = try graph.add(conditions: [category]) { _ in 2 }
    await ExclusivityLocks.shared.waitForWaiters(category.name, count: 1)
    let third = try graph.add(conditions: [category]) { _ in 3 }
    await ExclusivityLocks.shared.waitForWaiters(category.name, count: 2)
    graph.cancel(waiting)
    gate.open()
    let report = await run.value
    #expect(report[waiting].outcome?.isCancelled == true)
    #expect(report[waiting].startedAt == nil)
    #expect(try graph.result(of: third)?.get() == 3)
    #expect(!ExclusivityLocks.shared.isHeld(category.name))
  }

  @Test(.timeLimit(.minutes(1)))
  func `A Node Waiting For A Slot Holds No Category A Running Group's Child Needs`() async throws {
    // NB: The group takes the only slot. `waiting` has its conditions evaluated meanwhile and
    // then waits for the slot; the group's second child needs the same category. A node that
    // took its category before it had a slot would keep it from the child forever.
    let name = "Slot \(#line)"
    let evaluated = Latch()
    let graph = WorkGraph(maxConcurrentNodes: 1)
    let group = try graph.addGroup { group in
      let first = try group.add { _ in await evaluated.wait(for: 1) }
      try group.add(after: [first], conditions: [MutuallyExclusive(category: name)]) { _ in "child"
      }
    }
    let waiting = try graph.add(
      conditions: [
        MutuallyExclusive(category: name),
        BlockCondition {
          evaluated.arrive()
          return true
        },
      ]
    ) { _ in "waiting" }
    let report = await graph.run()
    #expect(report[group].outcome?.isSucceeded == true)
    #expect(try graph.result(of: waiting)?.get() == "waiting")
    #expect(!ExclusivityLocks.shared.isHeld("MutuallyExclusive<\(name)>"))
  }
}
