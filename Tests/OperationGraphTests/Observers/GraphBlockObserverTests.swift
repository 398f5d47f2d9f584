import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationSynchronization
import OperationTestSupport
import Testing

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

@Suite struct `GraphBlockObserver tests` {
  @Test func `Events Come In Order With The Dates Set Between Them`() async throws {
    var context = OperationContext()
    context.operationClock = IncrementingOperationClock()
    let graph = WorkGraph(context: context)
    let log = EventLog()
    let dates = Lock([String: (Date?, Date?)]())
    let record: @Sendable (String, NodeInfo) -> Void = { event, node in
      log.append(event)
      let report = node.report
      dates.withLock { $0[event] = (report.startedAt, report.finishedAt) }
    }
    let observer = GraphBlockObserver(
      didAttach: { record("attach", $0) },
      willStart: { record("willStart", $0) },
      didStart: { record("didStart", $0) },
      willFinish: { node, _ in record("willFinish", node) },
      didFinish: { node, _ in record("didFinish", node) }
    )
    let node = try graph.add(observers: [observer]) { _ in log.append("work") }
    await graph.run()
    #expect(log.events == ["attach", "willStart", "didStart", "work", "willFinish", "didFinish"])
    let recorded = dates.withLock { $0 }
    #expect(recorded["willStart"]?.0 == nil)
    #expect(recorded["willStart"]?.1 == nil)
    #expect(recorded["didStart"]?.0 != nil)
    #expect(recorded["didStart"]?.1 == nil)
    #expect(recorded["willFinish"]?.1 == nil)
    #expect(recorded["didFinish"]?.1 != nil)
    let report = graph.report(of: node)
    #expect(report.executionTime() > 0)
    #expect(report.executionTime() == report.finishedAt!.timeIntervalSince(report.startedAt!))
  }

  @Test func `The Outcome Carries The Node's Errors`() async throws {
    let outcomes = Lock([NodeOutcome]())
    let observer = GraphBlockObserver(didFinish: { _, outcome in
      outcomes.withLock { $0.append(outcome) }
    })
    let graph = WorkGraph(maxConcurrentNodes: 1)
    try graph.add(observers: [observer]) { _ in 1 }
    try graph.add(observers: [observer]) { _ in throw GraphTestError(code: 5) }
    await graph.run()
    let recorded = outcomes.withLock { $0 }
    #expect(recorded.map(\.errors.count) == [0, 1])
    #expect(recorded[1].errors.testCodes == [5])
  }

  @Test func `Cancel Is Heard Once However Often The Node Is Cancelled`() async throws {
    let cancels = Lock(0)
    let log = EventLog()
    let observer = GraphBlockObserver(
      willStart: { _ in log.append("willStart") },
      didCancel: { _, _ in cancels.withLock { $0 += 1 } },
      willFinish: { _, _ in log.append("willFinish") },
      didFinish: { _, _ in log.append("didFinish") }
    )
    let graph = WorkGraph()
    let node = try graph.add(observers: [observer]) { _ in 1 }
    graph.cancel(node)
    graph.cancel(node)
    await graph.run()
    graph.cancel(node)
    #expect(cancels.withLock { $0 } == 1)
    #expect(log.events == ["willFinish", "didFinish"])
  }

  @Test func `A Running Node's Cancellation Is Heard With Its Errors`() async throws {
    let errors = Lock([Int]())
    let started = Latch()
    let observer = GraphBlockObserver(didCancel: { _, cancelErrors in
      errors.withLock { $0 += cancelErrors.testCodes }
    })
    let graph = WorkGraph()
    let node = try graph.add(observers: [observer]) { _ in
      started.arrive()
      await suspendUntilCancelled()
    }
    let run = Task { await graph.run() }
    await started.wait(for: 1)
    graph.cancel(node, with: [GraphTestError(code: 8)])
    _ = await run.value
    #expect(errors.withLock { $0 } == [8])
  }

  @Test func `Produced Nodes Are Heard Of And Inheriting Observers Attach To Them`() async throws {
    let log = EventLog()
    let observer = GraphBlockObserver(
      attachesToProducedNodes: true,
      didAttach: { log.append("attach \($0.displayName)") },
      didProduce: { produced, producer in
        log.append("\(producer.displayName) produced \(produced.displayName)")
      }
    )
    let graph = WorkGraph()
    try graph.add(name: "producer", observers: [observer]) { context in
      try context.produce(GraphWork(name: "child") { _ in 1 })
    }
    await graph.run()
    #expect(log.events == ["attach producer", "attach child", "producer produced child"])
  }

  @Test func `A Graph's Observers See Every Node Like A Queue's Delegate`() async throws {
    let finished = Lock([String]())
    let graph = WorkGraph(
      maxConcurrentNodes: 1,
      observers: [
        GraphBlockObserver(didFinish: { node, _ in
          finished.withLock { $0.append(node.displayName) }
        })
      ]
    )
    try graph.add(name: "a") { _ in 1 }
    try graph.add(name: "b") { _ in 2 }
    await graph.run()
    #expect(finished.withLock { $0 } == ["a", "b"])
  }

  @Test func `A Node With Observers Added To A Cancelled Running Graph Ends Cancelled`()
    async throws
  {
    let graph = WorkGraph()
    let started = Latch()
    let gate = Gate()
    try graph.add { _ in
      started.arrive()
      await gate.wait()
    }
    let run = Task { await graph.run() }
    await started.wait(for: 1)
    graph.cancelAll(with: [GraphTestError(code: 6)])
    let log = EventLog()
    let late = try graph.add(
      observers: [
        GraphBlockObserver(
          didAttach: { _ in log.append("didAttach") },
          willStart: { _ in log.append("willStart") },
          didCancel: { _, errors in log.append("didCancel \(errors.testCodes)") },
          didFinish: { _, outcome in log.append("didFinish \(outcome.isCancelled)") }
        )
      ]
    ) { _ in 1 }
    gate.open()
    let report = await run.value
    #expect(log.events == ["didAttach", "didCancel [6]", "didFinish true"])
    #expect(report[late].outcome?.errors.testCodes == [6])
  }

  @Test func `Every Event Names The Node And Its Graph`() async throws {
    let seen = Lock([String]())
    let record: @Sendable (NodeInfo) -> Void = { node in
      seen.withLock { $0.append("\(node.displayName) in \(node.graph.name ?? "?")") }
    }
    let graph = WorkGraph(name: "Import queue")
    let node = try graph.add(
      name: "Doing some work...",
      observers: [
        GraphBlockObserver(
          willStart: record,
          didStart: record,
          willFinish: { node, _ in record(node) },
          didFinish: { node, _ in record(node) }
        )
      ]
    ) { _ in "done" }
    #expect(graph.report(of: node).description == "'Doing some work...' #0: pending")
    await graph.run()
    #expect(
      seen.withLock { $0 } == Array(repeating: "Doing some work... in Import queue", count: 4)
    )
    #expect(graph.report(of: node).description == "'Doing some work...' #0: finished: succeeded")
  }
}
