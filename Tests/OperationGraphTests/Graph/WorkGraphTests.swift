import Operation
@_spi(Warnings) import OperationCore
@_spi(Warnings) import OperationGraph
import OperationGraphTestFixtures
import OperationSynchronization
import OperationTestSupport
import Testing

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

@Suite struct `WorkGraph tests` {
  @Test func `Runs Requests And Closures And Passes Values To Dependents`() async throws {
    let graph = WorkGraph()
    let hello = try graph.add(ConstantRequest(value: "Hello"))
    let world = try graph.add(name: "World") { _ in "World" }
    let greeting = try graph.add(after: [hello, world]) { context in
      try "\(context.value(of: hello)) \(context.value(of: world))"
    }
    let report = await graph.run()
    #expect(try graph.result(of: greeting)?.get() == "Hello World")
    #expect(report.succeededCount == 3)
    #expect(report.errors.isEmpty)
    #expect(report[world].name == "World")
    #expect(report[hello].name == "ConstantRequest<String>")
  }

  @Test func `A Node Starts Only After Its Dependencies Finished`() async throws {
    let log = EventLog()
    let graph = WorkGraph(maxConcurrentNodes: 4)
    let first = try graph.add { _ in log.append("first") }
    let second = try graph.add(after: [first]) { _ in log.append("second") }
    let third = try graph.add { _ in log.append("third") }
    try graph.add(after: [second, third]) { _ in log.append("last") }
    await graph.run()
    let events = log.events
    #expect(events.count == 4)
    #expect(events.firstIndex(of: "first")! < events.firstIndex(of: "second")!)
    #expect(events.last == "last")
  }

  @Test func `A Failed Dependency Does Not Keep Its Dependents From Running`() async throws {
    let graph = WorkGraph()
    let failing = try graph.add { _ -> Int in throw GraphTestError(code: 1) }
    let dependent = try graph.add(after: [failing]) { context in
      // NB: PeakOperation's result passing: the failure arrives as a value.
      context.result(of: failing).mapError { $0 as! GraphTestError }
    }
    let report = await graph.run()
    #expect(try graph.result(of: dependent)?.get() == .failure(GraphTestError(code: 1)))
    #expect(report[failing].outcome?.errors.testCodes == [1])
    #expect(report.failedCount == 1)
  }

  @Test func `A Cancelled Producer Passes No Result And Its Consumer Still Runs`() async throws {
    let graph = WorkGraph()
    let producer = try graph.add { _ in true }
    let consumer = try graph.add(after: [producer]) { context in
      (try? context.value(of: producer)) == nil
    }
    graph.cancel(producer)
    await graph.run()
    #expect(graph.report(of: producer).outcome?.isCancelled == true)
    #expect(try graph.result(of: consumer)?.get() == true)
    #expect(throws: GraphNoResultError.self) { try graph.result(of: producer)?.get() }
  }

  @Test func `A Consuming Node Is Cancelled With The Errors Of A Failed Input`() async throws {
    let graph = WorkGraph()
    let words = try graph.add { _ in "Hello World" }
    let twice = try graph.add(consuming: words) { words, _ in "\(words) \(words)" }
    let failing = try graph.add { _ -> String in throw GraphTestError(code: 7) }
    let ran = Lock(false)
    let skipped = try graph.add(consuming: failing) { _, _ in ran.withLock { $0 = true } }
    await graph.run()
    #expect(try graph.result(of: twice)?.get() == "Hello World Hello World")
    #expect(!ran.withLock { $0 })
    let outcome = try #require(graph.report(of: skipped).outcome)
    #expect(outcome.isCancelled)
    let error = try #require(outcome.errors.first as? GraphDependencyFailedError)
    #expect(outcome.errors.count == 1)
    #expect(error.dependency == failing.id)
    #expect(error.errors.testCodes == [7])
  }

  @Test func `Never Runs More Nodes At Once Than Its Limit`() async throws {
    let probe = ConcurrencyProbe(nodeCount: 40)
    let gate = Gate()
    let arrivals = Latch()
    let graph = WorkGraph(maxConcurrentNodes: 3)
    for index in 0..<40 {
      try graph.add { _ in
        probe.enter(index)
        arrivals.arrive()
        await gate.wait()
        probe.exit(index)
      }
    }
    let run = Task { await graph.run() }
    await arrivals.wait(for: 3)
    #expect(graph.report.nodes.count { $0.status.isRunning } == 3)
    #expect(graph.report.nodes.count { $0.status.isReady } == 37)
    gate.open()
    _ = await run.value
    #expect(probe.maxRunning == 3)
    #expect(probe.runs == Array(repeating: 1, count: 40))
  }

  @Test func `A Suspended Graph Starts Nothing Until Resumed`() async throws {
    let graph = WorkGraph(maxConcurrentNodes: 2)
    let gate = Gate()
    let started = Latch()
    let finished = Latch()
    let first = try graph.add(observers: [
      GraphBlockObserver(didFinish: { _, _ in finished.arrive() })
    ]) {
      _ in
      started.arrive()
      await gate.wait()
    }
    let second = try graph.add(after: [first]) { _ in 2 }
    let run = Task { await graph.run() }
    await started.wait(for: 1)
    graph.suspend()
    #expect(graph.isSuspended)
    gate.open()
    await finished.wait(for: 1)
    #expect(graph.report(of: second).status.isReady)
    graph.resume()
    _ = await run.value
    #expect(try graph.result(of: second)?.get() == 2)
  }

  @Test func `Cancelling A Running Node Cancels Its Work And Ends It Cancelled`() async throws {
    let graph = WorkGraph()
    let started = Gate()
    let sawCancellation = Lock(false)
    let node = try graph.add { _ -> Int in
      started.open()
      await withTaskCancellationHandler {
        await suspendUntilCancelled()
      } onCancel: {
        sawCancellation.withLock { $0 = true }
      }
      return 1
    }
    let other = try graph.add(after: [node]) { _ in 2 }
    let run = Task { await graph.run() }
    await started.wait()
    graph.cancel(node, with: [GraphTestError(code: 3)])
    let report = await run.value
    #expect(sawCancellation.withLock { $0 })
    #expect(report[node].outcome?.isCancelled == true)
    #expect(report[node].outcome?.errors.testCodes == [3])
    #expect(try graph.result(of: other)?.get() == 2)
  }

  @Test func `Cancelling The Task That Runs The Graph Cancels Every Node`() async throws {
    let graph = WorkGraph(maxConcurrentNodes: 2)
    let started = Gate()
    try graph.add { _ in
      started.open()
      await suspendUntilCancelled()
    }
    try graph.add { _ in await suspendUntilCancelled() }
    let waiting = try graph.add(after: [GraphNodeID]()) { _ in 3 }
    let run = Task { await graph.run() }
    await started.wait()
    run.cancel()
    let report = await run.value
    #expect(report.cancelledCount + report.succeededCount == 3)
    #expect(report.nodes.allSatisfy { $0.outcome != nil })
    _ = waiting
  }

  @Test func `A Node Cancelled Before The Run Never Runs And Its Dependents Still Do`() async throws
  {
    let graph = WorkGraph()
    let ran = Lock(false)
    let cancelled = try graph.add { _ in ran.withLock { $0 = true } }
    let dependent = try graph.add(after: [cancelled]) { _ in 1 }
    graph.cancel(cancelled)
    graph.cancel(cancelled)
    let report = await graph.run()
    #expect(!ran.withLock { $0 })
    #expect(report[cancelled].outcome?.isCancelled == true)
    #expect(report[cancelled].outcome?.errors.isEmpty == true)
    #expect(try graph.result(of: dependent)?.get() == 1)
  }

  @Test func `Nodes Added While The Graph Runs Are Waited For`() async throws {
    let graph = WorkGraph()
    let producer = try graph.add { context -> GraphNode<Int> in
      try context.produce(GraphWork { _ in 42 })
    }
    let report = await graph.run()
    let produced = try #require(try graph.result(of: producer)?.get())
    #expect(report.nodes.count == 2)
    #expect(try graph.result(of: produced)?.get() == 42)
  }

  @Test func `A Cycle Is Refused With A Clear Error`() throws {
    let graph = WorkGraph()
    let a = try graph.add(name: "a") { _ in 1 }
    let b = try graph.add(name: "b", after: [a]) { _ in 2 }
    let c = try graph.add(name: "c", after: [b]) { _ in 3 }
    let error = #expect(throws: GraphError.self) { try graph.addDependency(a, on: c) }
    #expect(error?.code == .cycle)
    #expect(error?.nodes == [a.id, c.id, b.id, a.id])
    #expect(error?.message.contains("#0 'a' → #2 'c' → #1 'b' → #0 'a'") == true)
    let selfError = #expect(throws: GraphError.self) { try graph.addDependency(a, on: a) }
    #expect(selfError?.code == .cycle)
  }

  @Test func `Added Dependencies Order Nodes Added Earlier`() async throws {
    let log = EventLog()
    let graph = WorkGraph(maxConcurrentNodes: 1)
    let second = try graph.add { _ in log.append("second") }
    let first = try graph.add { _ in log.append("first") }
    try graph.addDependency(second, on: first)
    await graph.run()
    #expect(log.events == ["first", "second"])
  }

  @Test func `A Node Of Another Graph Is Refused`() throws {
    let graph = WorkGraph()
    let other = WorkGraph()
    let foreign = try other.add { _ in 1 }
    let error = #expect(throws: GraphError.self) { try graph.add(after: [foreign]) { _ in 2 } }
    #expect(error?.code == .unknownNode)
  }

  @Test func `Nothing Is Added After The Run Finished`() async throws {
    let graph = WorkGraph()
    try graph.add { _ in 1 }
    await graph.run()
    #expect(graph.isFinished)
    let error = #expect(throws: GraphError.self) { try graph.add { _ in 2 } }
    #expect(error?.code == .graphFinished)
  }

  @Test func `An Empty Graph Runs At Once And A Second Run Returns The Same Report`() async {
    let graph = WorkGraph()
    let report = await graph.run()
    #expect(report.nodes.isEmpty)
    #expect(await graph.run().nodes.isEmpty)
  }

  @Test func `Start And Finish Times Come From The Context's Clock`() async throws {
    var context = OperationContext()
    let clock = IncrementingOperationClock()
    context.operationClock = clock
    let graph = WorkGraph(context: context)
    let node = try graph.add { _ in 1 }
    await graph.run()
    let report = graph.report(of: node)
    let startedAt = try #require(report.startedAt)
    let finishedAt = try #require(report.finishedAt)
    #expect(finishedAt > startedAt)
    #expect(report.executionTime() == finishedAt.timeIntervalSince(startedAt))
  }

  @Test func `A Running Node's Execution Time Reads The Context's Clock`() async throws {
    var context = OperationContext()
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 100))
    context.operationClock = clock
    let graph = WorkGraph(context: context)
    let started = Gate()
    let release = Gate()
    let node = try graph.add { _ in
      started.open()
      await release.wait()
      return 1
    }
    #expect(graph.report(of: node).executionTime() == 0)
    let run = Task { await graph.run() }
    await started.wait()
    clock.advance(by: 5)
    #expect(graph.report(of: node).executionTime() == 5)
    #expect(graph.report(of: node).executionTime(now: Date(timeIntervalSince1970: 102)) == 2)
    release.open()
    _ = await run.value
    clock.advance(by: 60)
    #expect(graph.report(of: node).executionTime() == 5)
  }

  @Test func `A Node Runs Through A Client's Store And Shares Its State`() async throws {
    let client = OperationClient()
    let graph = WorkGraph()
    let query = CountingQuery()
    let node = try graph.add(query, through: client)
    await graph.run()
    #expect(try graph.result(of: node)?.get() == 1)
    #expect(client.store(for: query).currentValue == 1)
  }

  @Test func `A Limit Below One Is Reported And Taken As One`() {
    withKnownIssue {
      let graph = WorkGraph(maxConcurrentNodes: 0)
      #expect(graph.maxConcurrentNodes == 1)
    } matching: { issue in
      issue.comments.contains(Comment(rawValue: OperationWarning.graphConcurrencyLimit(0).message))
    }
  }

  @Test func `Dependent Nodes Always Run`() async throws {
    for _ in 0..<1_000 {
      let graph = WorkGraph(maxConcurrentNodes: 1)
      let counter = Lock(0)
      let first = try graph.add { _ in counter.withLock { $0 += 1 } }
      try graph.add(after: [first]) { _ in counter.withLock { $0 += 1 } }
      await graph.run()
      #expect(counter.withLock { $0 } == 2)
    }
  }
}

// MARK: - Cancelled before the work starts

@Suite struct `WorkGraph cancellation before the work tests` {
  /// Where an observer cancels the node it observes.
  enum CancellingEvent: String, CaseIterable, Sendable {
    case willStart
    case didStart
  }

  @Test(arguments: CancellingEvent.allCases)
  func `A Node Cancelled By Its Observer Before Its Work Starts Ends Cancelled Without Running It`(
    event: CancellingEvent
  ) async throws {
    let runs = Lock(0)
    let events = EventLog()
    let cancel: @Sendable (NodeInfo) -> Void = { node in
      node.graph.cancel(node.id, with: [GraphTestError(code: 8)])
    }
    let observer = GraphBlockObserver(
      willStart: { node in
        events.append("willStart")
        if event == .willStart { cancel(node) }
      },
      didStart: { node in
        events.append("didStart")
        if event == .didStart { cancel(node) }
      },
      didCancel: { _, _ in events.append("didCancel") },
      willFinish: { _, outcome in events.append("willFinish \(outcome.isCancelled)") },
      didFinish: { _, outcome in events.append("didFinish \(outcome.isCancelled)") }
    )
    let graph = WorkGraph(maxConcurrentNodes: 1)
    var nodes = [GraphNode<Void>]()
    for _ in 0..<100 {
      nodes.append(try graph.add(observers: [observer]) { _ in runs.withLock { $0 += 1 } })
    }
    let dependent = try graph.add(after: nodes) { _ in 1 }
    let report = await graph.run()
    #expect(runs.withLock { $0 } == 0)
    #expect(report.cancelledCount == 100)
    #expect(nodes.allSatisfy { report[$0].outcome?.errors.testCodes == [8] })
    #expect(nodes.allSatisfy { report[$0].startedAt != nil && report[$0].finishedAt != nil })
    #expect(try graph.result(of: dependent)?.get() == 1)
    let expected =
      switch event {
      case .willStart: ["willStart", "didCancel", "didStart"]
      case .didStart: ["willStart", "didStart", "didCancel"]
      }
    #expect(
      events.events
        == Array(
          repeating: expected + ["willFinish true", "didFinish true"],
          count: 100
        ).flatMap { $0 }
    )
  }

  @Test func `A Node Cancelled In WillStart Releases Its Mutual Exclusion Lock`() async throws {
    let runs = Lock([String]())
    let graph = WorkGraph()
    let category = MutuallyExclusive(category: "WorkGraphTests.cancelledInWillStart")
    let cancelled = try graph.add(
      conditions: [category],
      observers: [GraphBlockObserver(willStart: { node in node.graph.cancel(node.id) })]
    ) { _ in runs.withLock { $0.append("cancelled") } }
    let next = try graph.add(after: [cancelled], conditions: [category]) { _ in
      runs.withLock { $0.append("next") }
    }
    let report = await graph.run()
    #expect(report[cancelled].outcome?.isCancelled == true)
    #expect(report[next].outcome?.isSucceeded == true)
    #expect(runs.withLock { $0 } == ["next"])
  }
}

// MARK: - Finish times

@Suite struct `WorkGraph finish time tests` {
  /// Ways a node ends without its work running.
  enum NeverRuns: String, CaseIterable, Sendable {
    case cancelledBeforeTheRun
    case cancelledWhileWaiting
    case failedCondition
    case cancelledInWillStart
  }

  @Test(arguments: NeverRuns.allCases)
  func `A Node That Never Runs Has Its Finish Time Set Between WillFinish And DidFinish`(
    way: NeverRuns
  ) async throws {
    let clock = IncrementingOperationClock()
    var context = OperationContext()
    context.operationClock = clock
    let readings = Lock([String: Date?]())
    let observer = GraphBlockObserver(
      willStart: { node in
        if way == .cancelledInWillStart { node.graph.cancel(node.id) }
      },
      willFinish: { node, _ in
        let finishedAt = node.report.finishedAt
        let now = clock.now()
        readings.withLock {
          $0["willFinish finishedAt"] = finishedAt
          $0["willFinish now"] = now
        }
      },
      didFinish: { node, _ in
        let finishedAt = node.report.finishedAt
        readings.withLock { $0["didFinish finishedAt"] = finishedAt }
      }
    )
    let graph = WorkGraph(context: context)
    let gate = Gate()
    let first = try graph.add { _ in await gate.wait() }
    let node = try graph.add(
      after: way == .cancelledWhileWaiting ? [first] : [],
      conditions: way == .failedCondition ? [BlockCondition { false }] : [],
      observers: [observer]
    ) { _ in 1 }
    if way == .cancelledBeforeTheRun {
      graph.cancel(node)
    }
    let run = Task { await graph.run() }
    if way == .cancelledWhileWaiting {
      graph.cancel(node)
    }
    gate.open()
    let report = await run.value
    #expect(report[node].outcome?.isSucceeded == false)
    let values = readings.withLock { $0 }
    #expect(values["willFinish finishedAt"] == .some(nil))
    let willFinish = try #require(values["willFinish now"] ?? nil)
    let finishedAt = try #require(values["didFinish finishedAt"] ?? nil)
    #expect(finishedAt > willFinish)
    #expect(report[node].finishedAt == finishedAt)
  }
}

// MARK: - Helpers

extension NodeStatus {
  var isRunning: Bool {
    if case .running = self { true } else { false }
  }

  var isReady: Bool {
    if case .ready = self { true } else { false }
  }
}

extension `WorkGraph tests` {
  @Test func `Every Observer Of A Node Hears Its End Once`() async throws {
    let counts = Lock([0, 0])
    let observers = (0..<2).map { index in
      GraphBlockObserver(didFinish: { _, _ in counts.withLock { $0[index] += 1 } })
    }
    let graph = WorkGraph()
    try graph.add(observers: observers) { _ in 1 }
    await graph.run()
    #expect(counts.withLock { $0 } == [1, 1])
  }

  @Test func `Timeout Errors Are Equal When Their Durations Are`() {
    #expect(
      OperationTimeoutError(duration: .seconds(1)) == OperationTimeoutError(duration: .seconds(1))
    )
    #expect(
      OperationTimeoutError(duration: .seconds(1)) != OperationTimeoutError(duration: .seconds(2))
    )
  }
}

@Suite struct `WorkGraph stress tests` {
  /// A random DAG: each node depends on up to three earlier nodes.
  static func randomDependencies(count: Int, seed: UInt64) -> [[Int]] {
    var generator = SeededGenerator(seed: seed)
    return (0..<count).map { index in
      guard index > 0 else { return [] }
      let count = Int.random(in: 0...3, using: &generator)
      return (0..<count).map { _ in Int.random(in: 0..<index, using: &generator) }
    }
  }

  @Test
  func
    `Ten Thousand Nodes Run Once Each After Their Dependencies And Never More Than Eight At Once`()
    async throws
  {
    let dependencies = Self.randomDependencies(count: 10_000, seed: 13)
    let probe = ConcurrencyProbe(nodeCount: dependencies.count)
    let graph = WorkGraph(maxConcurrentNodes: 8)
    var nodes = [GraphNode<Void>]()
    for (index, nodeDependencies) in dependencies.enumerated() {
      nodes.append(
        try graph.add(after: nodeDependencies.map { nodes[$0] }) { _ in
          probe.enter(index)
          probe.exit(index)
        }
      )
    }
    let report = await graph.run()
    #expect(report.succeededCount == 10_000)
    #expect(probe.runs.allSatisfy { $0 == 1 })
    #expect(probe.maxRunning <= 8)
    #expect(probe.maxRunning >= 1)
    #expect(probe.orderViolations(dependencies: dependencies).isEmpty)
  }

  @Test func `Ten Thousand Nodes With Random Cancellations End With Nothing Running`() async throws
  {
    let dependencies = Self.randomDependencies(count: 10_000, seed: 31)
    let probe = ConcurrencyProbe(nodeCount: dependencies.count)
    let graph = WorkGraph(maxConcurrentNodes: 8)
    var generator = SeededGenerator(seed: 7)
    let victims = (0..<10_000).map { _ in Int.random(in: 0..<10_000, using: &generator) }
    let ids = Lock([GraphNodeID]())
    for (index, nodeDependencies) in dependencies.enumerated() {
      let node = try graph.add(after: nodeDependencies.map { ids.withLock { $0 }[$0] }) { context in
        probe.enter(index)
        if index % 3 == 0 {
          // NB: Every third node cancels another one, which may not have started, may be
          // running, or may have finished.
          context.graph.cancel(ids.withLock { $0 }[victims[index]])
        }
        probe.exit(index)
      }
      ids.withLock { $0.append(node.id) }
    }
    let run = Task { await graph.run() }
    graph.cancel(ids.withLock { $0 }[5_000])
    let report = await run.value
    #expect(probe.running == 0)
    #expect(probe.runs.allSatisfy { $0 <= 1 })
    #expect(probe.maxRunning <= 8)
    #expect(
      report.nodes.allSatisfy { $0.outcome?.isSucceeded == true || $0.outcome?.isCancelled == true }
    )
    #expect(report.cancelledCount > 0)
    #expect(report.succeededCount + report.cancelledCount == 10_000)
    #expect(probe.orderViolations(dependencies: dependencies).isEmpty)
  }
}

@Suite struct `WorkGraph progress tests` {
  @Test func `A Graph's Progress Counts A Unit Per Node And Reaches One`() async throws {
    let graph = WorkGraph()
    let first = try graph.add { _ in 1 }
    try graph.add(after: [first]) { _ in throw GraphTestError() }
    let cancelled = try graph.add { _ in 3 }
    graph.cancel(cancelled)
    #expect(graph.progress.progress == OperationProgress(completedUnitCount: 0, totalUnitCount: 3))
    await graph.run()
    let progress = graph.progress.progress
    #expect(progress.completedUnitCount == 3)
    #expect(progress.totalUnitCount == 3)
    #expect(progress.fractionCompleted == 1)
    #expect(progress.isFinished)
  }

  @Test func `A Running Node's Reported Progress Counts As Part Of Its Unit`() async throws {
    let graph = WorkGraph(maxConcurrentNodes: 1)
    let gate = Gate()
    let halfway = Latch()
    try graph.add { context in
      context.operationContext.progressReporter?.report(fractionCompleted: 0.5)
      halfway.arrive()
      await gate.wait()
    }
    try graph.add { _ in 2 }
    let run = Task { await graph.run() }
    await halfway.wait(for: 1)
    #expect(graph.progress.progress.fractionCompleted == 0.25)
    #expect(graph.progress.progress.completedUnitCount == 0)
    gate.open()
    _ = await run.value
    #expect(graph.progress.progress.fractionCompleted == 1)
  }

  @Test func `A Group's Progress Follows Its Children`() async throws {
    let graph = WorkGraph(maxConcurrentNodes: 1)
    let gate = Gate()
    let started = Latch()
    try graph.addGroup(maxConcurrentNodes: 1) { group in
      try group.add { _ in 1 }
      try group.add { _ in
        started.arrive()
        await gate.wait()
      }
    }
    let run = Task { await graph.run() }
    await started.wait(for: 1)
    #expect(graph.progress.progress.fractionCompleted == 0.5)
    gate.open()
    _ = await run.value
    #expect(graph.progress.progress.isFinished)
  }

  @Test func `The Updates Sequence Ends With The Finished Graph`() async throws {
    let graph = WorkGraph(maxConcurrentNodes: 1)
    for value in 0..<4 {
      try graph.add { _ in value }
    }
    let updates = Task {
      var last: OperationProgress?
      for await progress in graph.progress.updates {
        last = progress
      }
      return last
    }
    await graph.run()
    #expect(await updates.value?.isFinished == true)
  }
}

@Suite struct `WorkGraph cancellation race tests` {
  /// A graph whose first action, when it starts, ends a node cancelled before the run; that node's
  /// `willFinish` cancels `target`, which the same start has just given a task it has not made yet.
  static func graphCancellingOnFirstEnd<Value: Sendable>(
    conditions: [any GraphCondition] = [],
    _ body: @escaping @Sendable (NodeContext) async throws -> Value
  ) throws -> (WorkGraph, GraphNode<Value>) {
    let graph = WorkGraph()
    let target = Lock<GraphNode<Value>?>(nil)
    let first = try graph.add(
      observers: [
        GraphBlockObserver(willFinish: { _, _ in
          if let node = target.withLock({ $0 }) { graph.cancel(node) }
        })
      ]
    ) { _ in }
    let node = try graph.add(conditions: conditions, body)
    target.withLock { $0 = node }
    graph.cancel(first)
    return (graph, node)
  }

  @Test func `A Node Cancelled Before Its Worker Task Exists Never Runs Its Work`() async throws {
    let ran = Lock(false)
    let (graph, node) = try Self.graphCancellingOnFirstEnd { _ in
      ran.withLock { $0 = true }
    }
    let report = await graph.run()
    #expect(report[node].outcome?.isCancelled == true)
    #expect(!ran.withLock { $0 })
  }

  @Test func `A Node Cancelled Before Its Evaluation Task Exists Has Its Evaluation Cancelled`()
    async throws
  {
    let started = Gate()
    let escape = Gate()
    let sawCancellation = Lock<Bool?>(nil)
    let condition = BlockCondition {
      started.open()
      await withTaskCancellationHandler {
        await escape.wait()
      } onCancel: {
        escape.open()
      }
      sawCancellation.withLock { $0 = Task.isCancelled }
      return true
    }
    let (graph, node) = try Self.graphCancellingOnFirstEnd(conditions: [condition]) { _ in 1 }
    let run = Task { await graph.run() }
    await started.wait()
    escape.open()
    let report = await run.value
    #expect(report[node].outcome?.isCancelled == true)
    #expect(sawCancellation.withLock { $0 } == true)
  }
}
