import PropertyBased
import Testing

@testable import OperationGraph

@Suite struct `GraphStateMachine tests` {
  typealias Machine = GraphStateMachine

  @Test func `Nothing Starts Before The Graph Runs`() throws {
    var machine = Machine(concurrencyLimit: 2)
    let (_, actions) = try machine.add(dependencies: [], needsEvaluation: false)
    #expect(actions.isEmpty)
    #expect(machine.start() == [.startWorker(node: 0, worker: 0)])
  }

  @Test func `A Node Starts Only After Every Dependency Finished`() throws {
    var machine = Machine(concurrencyLimit: 4)
    _ = try machine.add(dependencies: [], needsEvaluation: false)
    _ = try machine.add(dependencies: [], needsEvaluation: false)
    _ = try machine.add(dependencies: [0, 1], needsEvaluation: false)
    #expect(
      machine.start() == [.startWorker(node: 0, worker: 0), .startWorker(node: 1, worker: 1)]
    )
    let first = machine.finished(0, end: .succeeded, settles: true)
    #expect(first.next == nil)
    #expect(first.actions.isEmpty)
    let second = machine.finished(1, end: .failed, settles: true)
    // NB: A plain dependency orders work and does not gate it: the failed one releases node 2,
    // and the worker that ran node 1 takes it.
    #expect(second.next == 2)
    #expect(second.actions.isEmpty)
    let last = machine.finished(2, end: .succeeded, settles: true)
    #expect(last.actions == [.completeRun])
    #expect(machine.lifecycle == .finished)
  }

  @Test func `A Chain Runs On One Worker`() throws {
    var machine = Machine(concurrencyLimit: 8)
    for index in 0..<100 {
      _ = try machine.add(dependencies: index == 0 ? [] : [index - 1], needsEvaluation: false)
    }
    #expect(machine.start() == [.startWorker(node: 0, worker: 0)])
    for index in 0..<99 {
      let continuation = machine.finished(index, end: .succeeded, settles: true)
      #expect(continuation.next == index + 1)
      #expect(continuation.actions.isEmpty)
    }
    #expect(machine.finished(99, end: .succeeded, settles: true).actions == [.completeRun])
  }

  @Test func `The Concurrency Limit Holds And Freed Slots Go To The Finishing Worker`() throws {
    var machine = Machine(concurrencyLimit: 2)
    for _ in 0..<5 {
      _ = try machine.add(dependencies: [], needsEvaluation: false)
    }
    #expect(
      machine.start() == [.startWorker(node: 0, worker: 0), .startWorker(node: 1, worker: 1)]
    )
    #expect(machine.runningCount == 2)
    #expect(machine.readyCount == 3)
    #expect(machine.finished(1, end: .succeeded, settles: true).next == 2)
    #expect(machine.runningCount == 2)
    #expect(machine.finished(0, end: .succeeded, settles: true).next == 3)
    #expect(machine.finished(2, end: .succeeded, settles: true).next == 4)
  }

  @Test func `Suspension Holds Ready Nodes Until Resumed`() throws {
    var machine = Machine(concurrencyLimit: 2)
    _ = try machine.add(dependencies: [], needsEvaluation: false)
    _ = try machine.add(dependencies: [0], needsEvaluation: false)
    _ = machine.start()
    machine.suspend()
    let continuation = machine.finished(0, end: .succeeded, settles: true)
    #expect(continuation.next == nil)
    #expect(machine.readyCount == 1)
    #expect(machine.resume() == [.startWorker(node: 1, worker: 1)])
  }

  @Test func `A Cycle Is Refused With Its Path`() throws {
    var machine = Machine(concurrencyLimit: 1)
    _ = try machine.add(dependencies: [], needsEvaluation: false)
    _ = try machine.add(dependencies: [0], needsEvaluation: false)
    _ = try machine.add(dependencies: [1], needsEvaluation: false)
    #expect(throws: GraphStateMachineError.cycle([0, 2, 1, 0])) {
      try machine.addDependency(0, on: 2)
    }
    #expect(throws: GraphStateMachineError.cycle([1, 1])) {
      try machine.addDependency(1, on: 1)
    }
    #expect(throws: GraphStateMachineError.unknownNode(7)) {
      try machine.addDependency(7, on: 1)
    }
    try machine.addDependency(2, on: 0)
    #expect(machine.nodes[2].dependencies == [1, 0])
  }

  @Test func `A Started Node Gains No Dependency`() throws {
    var machine = Machine(concurrencyLimit: 1)
    _ = try machine.add(dependencies: [], needsEvaluation: false)
    _ = try machine.add(dependencies: [], needsEvaluation: false)
    _ = machine.start()
    #expect(throws: GraphStateMachineError.nodeStarted(0)) {
      try machine.addDependency(0, on: 1)
    }
  }

  @Test func `Nothing Is Added After The Run Finished`() throws {
    var machine = Machine(concurrencyLimit: 1)
    #expect(machine.start() == [.completeRun])
    #expect(throws: GraphStateMachineError.finished) {
      try machine.add(dependencies: [], needsEvaluation: false)
    }
  }

  @Test
  func `A Cancelled Waiting Node Ends Only After Its Dependencies And Its Dependents Still Run`()
    throws
  {
    var machine = Machine(concurrencyLimit: 4)
    _ = try machine.add(dependencies: [], needsEvaluation: false)
    _ = try machine.add(dependencies: [0], needsEvaluation: false)
    _ = try machine.add(dependencies: [1], needsEvaluation: false)
    _ = machine.start()
    #expect(machine.cancel(1) == (true, []))
    #expect(machine.nodes[1].end == nil)
    let continuation = machine.finished(0, end: .succeeded, settles: true)
    #expect(continuation.actions == [.endWithoutRunning(node: 1, end: .cancelled)])
    #expect(continuation.next == 2)
  }

  @Test
  func `Cancelling A Running Node Cancels Its Worker Once And The Worker Takes No Further Node`()
    throws
  {
    var machine = Machine(concurrencyLimit: 1)
    _ = try machine.add(dependencies: [], needsEvaluation: false)
    _ = try machine.add(dependencies: [], needsEvaluation: false)
    _ = machine.start()
    #expect(machine.cancel(0) == (true, [.cancelWorker(0)]))
    #expect(machine.cancel(0) == (false, []))
    let continuation = machine.finished(0, end: .succeeded, settles: true)
    #expect(continuation.end == .cancelled)
    #expect(continuation.next == nil)
    #expect(continuation.actions == [.startWorker(node: 1, worker: 1)])
  }

  @Test func `Cancelling A Ready Node Ends It At Once`() throws {
    var machine = Machine(concurrencyLimit: 1)
    _ = try machine.add(dependencies: [], needsEvaluation: false)
    _ = try machine.add(dependencies: [], needsEvaluation: false)
    _ = machine.start()
    #expect(machine.cancel(1) == (true, [.endWithoutRunning(node: 1, end: .cancelled)]))
    #expect(machine.finished(0, end: .succeeded, settles: true).next == nil)
  }

  @Test func `A Node Whose Work Returned Cannot Be Cancelled`() throws {
    var machine = Machine(concurrencyLimit: 1)
    _ = try machine.add(dependencies: [], needsEvaluation: false)
    _ = machine.start()
    #expect(machine.workReturned(0, end: .succeeded) == .succeeded)
    #expect(machine.cancel(0) == (false, []))
    #expect(machine.finished(0, end: .succeeded, settles: false).end == .succeeded)
    #expect(machine.settled(0) == [.completeRun])
  }

  @Test func `Conditions Are Evaluated Before A Node Takes A Slot`() throws {
    var machine = Machine(concurrencyLimit: 1)
    _ = try machine.add(dependencies: [], needsEvaluation: true)
    _ = try machine.add(dependencies: [], needsEvaluation: true)
    #expect(machine.start() == [.evaluate(node: 0), .evaluate(node: 1)])
    #expect(
      machine.conditionsEvaluated(1, result: .failed) == [
        .endWithoutRunning(node: 1, end: .notExecuted)
      ]
    )
    #expect(
      machine.conditionsEvaluated(0, result: .satisfied) == [.startWorker(node: 0, worker: 0)]
    )
  }

  @Test func `Cancelling During Evaluation Cancels The Evaluation And Ends The Node Cancelled`()
    throws
  {
    var machine = Machine(concurrencyLimit: 1)
    _ = try machine.add(dependencies: [], needsEvaluation: true)
    _ = machine.start()
    #expect(machine.cancel(0) == (true, [.cancelEvaluation(node: 0)]))
    #expect(
      machine.conditionsEvaluated(0, result: .satisfied) == [
        .endWithoutRunning(node: 0, end: .cancelled)
      ]
    )
  }

  @Test func `Cancel All Cancels Nodes Added Later Too`() throws {
    var machine = Machine(concurrencyLimit: 1)
    _ = try machine.add(dependencies: [], needsEvaluation: false)
    _ = machine.start()
    let (cancelled, actions) = machine.cancelAll()
    #expect(cancelled == [0])
    #expect(actions == [.cancelWorker(0)])
    let added = try machine.add(dependencies: [], needsEvaluation: false)
    #expect(added.actions == [.endWithoutRunning(node: 1, end: .cancelled)])
  }

  @Test func `A Held Node Waits For Its Release`() throws {
    var machine = Machine(concurrencyLimit: 2)
    _ = try machine.add(dependencies: [], needsEvaluation: false)
    _ = machine.start()
    let added = try machine.add(dependencies: [], needsEvaluation: false, isHeld: true)
    #expect(added.actions.isEmpty)
    #expect(machine.release(added.node) == [.startWorker(node: 1, worker: 1)])
  }

  @Test func `A Long Cancelled Chain Ends Without Recursion`() throws {
    var machine = Machine(concurrencyLimit: 1)
    for index in 0..<50_000 {
      _ = try machine.add(dependencies: index == 0 ? [] : [index - 1], needsEvaluation: false)
    }
    _ = machine.cancelAll()
    let actions = machine.start()
    #expect(actions.count == 50_000)
    #expect(machine.nodes.allSatisfy { $0.end == .cancelled })
  }

  @Test func `The Run Completes Once Every Node Settled`() throws {
    var machine = Machine(concurrencyLimit: 1)
    _ = try machine.add(dependencies: [], needsEvaluation: false)
    _ = machine.start()
    #expect(machine.finished(0, end: .succeeded, settles: false).actions.isEmpty)
    #expect(machine.lifecycle == .running)
    #expect(machine.settled(0) == [.completeRun])
  }

  @Test func `A Dependency Given Twice Counts Once`() throws {
    var machine = Machine(concurrencyLimit: 1)
    for _ in 0..<3 {
      _ = try machine.add(dependencies: [], needsEvaluation: false)
    }
    let added = try machine.add(dependencies: [0, 1, 0, 2, 1, 2], needsEvaluation: false)
    #expect(machine.nodes[added.node].dependencies == [0, 1, 2])
    #expect(machine.nodes[added.node].unfinishedDependencyCount == 3)
    #expect(machine.nodes.prefix(3).allSatisfy { $0.dependents == [added.node] })
    try machine.addDependency(added.node, on: 1)
    #expect(machine.nodes[added.node].dependencies == [0, 1, 2])
    _ = machine.start()
    _ = machine.finished(0, end: .succeeded, settles: true)
    _ = machine.finished(1, end: .succeeded, settles: true)
    #expect(machine.finished(2, end: .succeeded, settles: true).next == added.node)
  }

  @Test(.timeLimit(.minutes(1)))
  func `A Node With Fifty Thousand Dependencies Is Added In Linear Time`() throws {
    // NB: Adding a node used to check each dependency against every one before it: O(n²), 46 s
    // for 40,000 dependencies in issue 25's probe. Linear, this test takes well under a second
    // in a debug build; the time limit catches a return to quadratic work.
    let count = 50_000
    var machine = Machine(concurrencyLimit: 8)
    for _ in 0..<count {
      _ = try machine.add(dependencies: [], needsEvaluation: false)
    }
    let added = try machine.add(
      dependencies: Array(0..<count) + Array(0..<count),
      needsEvaluation: false
    )
    #expect(machine.nodes[added.node].dependencies.count == count)
    #expect(machine.nodes[added.node].unfinishedDependencyCount == count)
  }

  @Test(.timeLimit(.minutes(1)))
  func `Fifty Thousand Dependencies Added One By One Take Linear Time`() throws {
    // NB: Each new edge used to be searched for among the node's dependencies: O(n²).
    let count = 50_000
    var machine = Machine(concurrencyLimit: 8)
    for _ in 0..<count {
      _ = try machine.add(dependencies: [], needsEvaluation: false)
    }
    let node = try machine.add(dependencies: [], needsEvaluation: false).node
    for dependency in 0..<count {
      try machine.addDependency(node, on: dependency)
    }
    // NB: And the other way: one node that many later nodes wait for.
    for dependent in 1..<count {
      try machine.addDependency(dependent, on: 0)
    }
    #expect(machine.nodes[node].dependencies.count == count)
    #expect(machine.nodes[0].dependents.count == count)
  }

  @Test func `A Cycle Through An Edge To A Later Node Is Still Refused`() throws {
    var machine = Machine(concurrencyLimit: 1)
    for _ in 0..<3 {
      _ = try machine.add(dependencies: [], needsEvaluation: false)
    }
    // NB: An edge to a node added later ends the shortcut that skips the search for a cycle.
    try machine.addDependency(0, on: 2)
    try machine.addDependency(2, on: 1)
    #expect(throws: GraphStateMachineError.cycle([1, 0, 2, 1])) {
      try machine.addDependency(1, on: 0)
    }
  }

  @Test func `An Abandoned Node Ends Failed And Its Worker Takes No Further Node`() throws {
    var machine = Machine(concurrencyLimit: 1)
    _ = try machine.add(dependencies: [], needsEvaluation: false)
    _ = try machine.add(dependencies: [0], needsEvaluation: false)
    _ = try machine.add(dependencies: [], needsEvaluation: false)
    #expect(machine.start() == [.startWorker(node: 0, worker: 0)])
    let abandoned = try #require(Self.abandon(0, in: &machine))
    #expect(abandoned.end == .failed)
    #expect(abandoned.actions == [.cancelWorker(0)])
    #expect(machine.nodes[0].isAbandoned)
    #expect(Self.abandon(0, in: &machine) == nil)
    #expect(machine.cancel(0) == (false, []))
    let continuation = machine.finished(0, end: .failed, settles: true)
    #expect(continuation.end == .failed)
    #expect(continuation.next == nil)
    // NB: The freed slot goes to a new worker; node 1, released by node 0's end, waits for it.
    #expect(continuation.actions == [.startWorker(node: 2, worker: 1)])
    #expect(machine.runningCount == 1)
    #expect(machine.readyCount == 1)
    #expect(machine.nodes[1].phase == .ready)
  }

  @Test func `A Cancelled Node Abandoned At Its Deadline Ends Cancelled`() throws {
    var machine = Machine(concurrencyLimit: 1)
    _ = try machine.add(dependencies: [], needsEvaluation: false)
    _ = machine.start()
    #expect(machine.cancel(0) == (true, [.cancelWorker(0)]))
    let abandoned = try #require(Self.abandon(0, in: &machine))
    #expect(abandoned.end == .cancelled)
    #expect(abandoned.actions.isEmpty)
  }

  @Test func `A Node That Is Not Running Cannot Be Abandoned`() throws {
    var machine = Machine(concurrencyLimit: 1)
    _ = try machine.add(dependencies: [], needsEvaluation: false)
    _ = try machine.add(dependencies: [], needsEvaluation: false)
    #expect(Self.abandon(0, in: &machine) == nil)
    _ = machine.start()
    #expect(Self.abandon(1, in: &machine) == nil)
    #expect(machine.workReturned(0, end: .succeeded) == .succeeded)
    #expect(Self.abandon(0, in: &machine) == nil)
    #expect(Self.abandon(7, in: &machine) == nil)
  }

  /// Abandons a node outside of `#expect`, whose expansion cannot call a mutating method.
  static func abandon(
    _ node: Int,
    in machine: inout Machine
  ) -> (end: Machine.End, actions: [Machine.Action])? {
    machine.abandon(node)
  }

  @Test func `A Cancelled Chain Ends In Dependency Order`() throws {
    var machine = Machine(concurrencyLimit: 1)
    for index in 0..<4 {
      _ = try machine.add(dependencies: index == 0 ? [] : [index - 1], needsEvaluation: false)
    }
    _ = machine.cancelAll()
    #expect(
      machine.start() == (0..<4).map { .endWithoutRunning(node: $0, end: .cancelled) }
    )
  }
}

// MARK: - Generated event sequences

@Suite struct `GraphStateMachine generated tests` {
  @Test(arguments: [1, 3])
  func `Generated Event Sequences Keep Every Rule`(limit: Int) async {
    // NB: Each number is one event: its remainder by 10 says which, and its quotient which node
    // it applies to (see `SchedulingHarness.apply`).
    await propertyCheck(count: 300, input: Gen.int(in: 0...199).array(of: 0...120)) { events in
      var harness = SchedulingHarness(limit: limit)
      for event in events {
        harness.apply(event)
        harness.checkInvariants()
      }
      harness.drain()
      harness.checkOutcomes()
    }
  }
}

/// Drives a state machine as a graph would, with the tasks it asks for simulated: workers run
/// their node until the harness finishes it, evaluations end when the harness decides, and
/// nodes that end without running settle when the harness lets them.
private struct SchedulingHarness {
  var machine: GraphStateMachine
  /// The node each live worker runs.
  var workers = [Int: Int]()
  /// Workers whose task was cancelled: for good, so they must take no further node.
  var cancelledWorkers = Set<Int>()
  /// Nodes whose conditions are being evaluated.
  var evaluating = Set<Int>()
  /// Nodes that ended and wait for their observers (to settle).
  var unsettled = Set<Int>()
  /// How often each node ended (ran to its end, or ended without running).
  var ends = [Int]()
  var completions = 0

  init(limit: Int) {
    self.machine = GraphStateMachine(concurrencyLimit: limit)
  }

  mutating func apply(_ event: Int) {
    let which = event % 10
    let target = event / 10
    let count = self.machine.nodes.count
    switch which {
    case 0, 1:
      // Add a node after up to two earlier ones.
      guard self.machine.lifecycle != .finished else { return }
      var dependencies = [Int]()
      if count > 0 {
        dependencies.append(target % count)
        if target % 3 == 0 { dependencies.append((target / 3) % count) }
      }
      let added = try! self.machine.add(
        dependencies: dependencies,
        needsEvaluation: target % 4 == 0
      )
      self.ends.append(0)
      self.perform(added.actions)
    case 2:
      guard count > 1 else { return }
      // NB: A refused edge (a cycle, a started node) changes nothing.
      try? self.machine.addDependency(target % count, on: (target / count) % count)
    case 3:
      self.perform(self.machine.start())
    case 4, 5:
      // A worker's node returns, or (one time in six) reaches its deadline first.
      guard
        let worker = self.workers.keys.sorted().dropFirst(target % max(self.workers.count, 1)).first
      else { return }
      if which == 5 && target % 3 == 0 {
        self.abandonWorker(worker, settles: target % 2 == 0)
      } else {
        self.finishWorker(
          worker,
          end: target % 5 == 0 ? .failed : .succeeded,
          settles: target % 2 == 0
        )
      }
    case 6:
      guard
        let node = self.evaluating.sorted().dropFirst(target % max(self.evaluating.count, 1)).first
      else { return }
      self.evaluating.remove(node)
      let result: GraphStateMachine.ConditionsResult = [
        .satisfied, .satisfied, .failed, .cancelled,
      ][target % 4]
      self.perform(self.machine.conditionsEvaluated(node, result: result))
    case 7:
      guard count > 0 else { return }
      self.perform(self.machine.cancel(target % count).actions)
    case 8:
      if target % 7 == 0 {
        self.perform(self.machine.cancelAll().actions)
      } else if target % 2 == 0 {
        self.machine.suspend()
      } else {
        self.perform(self.machine.resume())
      }
    default:
      guard let node = self.unsettled.sorted().first else { return }
      self.unsettled.remove(node)
      self.perform(self.machine.settled(node))
    }
  }

  mutating func finishWorker(_ worker: Int, end: GraphStateMachine.End, settles: Bool) {
    guard let node = self.workers[worker] else { return }
    let continuation = self.machine.finished(node, end: end, settles: settles)
    self.ends[node] += 1
    if !settles {
      self.unsettled.insert(node)
    }
    if let next = continuation.next {
      #expect(!self.cancelledWorkers.contains(worker), "cancelled worker \(worker) took \(next)")
      self.workers[worker] = next
    } else {
      self.workers[worker] = nil
    }
    self.perform(continuation.actions)
  }

  /// Ends a worker's node at its deadline, as a timeout does: the worker's task is cancelled and
  /// left to the work, whose late return the graph ignores.
  mutating func abandonWorker(_ worker: Int, settles: Bool) {
    guard let node = self.workers[worker] else { return }
    guard let (end, actions) = self.machine.abandon(node) else {
      Issue.record("a running node could not be abandoned: \(node)")
      return
    }
    #expect(end == (self.machine.nodes[node].isCancellationRequested ? .cancelled : .failed))
    self.perform(actions)
    #expect(self.cancelledWorkers.contains(worker), "abandoned worker \(worker) not cancelled")
    let continuation = self.machine.finished(node, end: end, settles: settles)
    self.ends[node] += 1
    if !settles {
      self.unsettled.insert(node)
    }
    #expect(continuation.next == nil, "abandoned worker \(worker) took \(continuation.next!)")
    self.workers[worker] = nil
    self.perform(continuation.actions)
  }

  mutating func perform(_ actions: [GraphStateMachine.Action]) {
    for action in actions {
      switch action {
      case .evaluate(let node):
        #expect(self.evaluating.insert(node).inserted, "evaluated twice at once: \(node)")
      case .cancelEvaluation:
        break
      case .startWorker(let node, let worker):
        #expect(self.workers[worker] == nil, "worker \(worker) started twice")
        self.workers[worker] = node
      case .cancelWorker(let worker):
        #expect(self.workers[worker] != nil, "cancelled worker \(worker) is not running")
        self.cancelledWorkers.insert(worker)
      case .endWithoutRunning(let node, _):
        self.ends[node] += 1
        self.unsettled.insert(node)
      case .completeRun:
        self.completions += 1
      }
    }
  }

  func checkInvariants() {
    let running = self.machine.nodes.indices.filter {
      switch self.machine.nodes[$0].phase {
      case .running, .finishing: true
      default: false
      }
    }
    #expect(running.count == self.machine.runningCount)
    #expect(running.count <= self.machine.concurrencyLimit)
    #expect(Set(running) == Set(self.workers.values))
    for node in running {
      for dependency in self.machine.nodes[node].dependencies {
        #expect(
          self.machine.nodes[dependency].phase == .finished,
          "\(node) runs before \(dependency)"
        )
      }
    }
    #expect(self.ends.allSatisfy { $0 <= 1 })
    #expect(self.completions <= 1)
    if self.completions == 1 {
      #expect(self.machine.nodes.allSatisfy { $0.isSettled })
    }
  }

  /// Lets everything that is pending happen, as a graph's tasks would.
  mutating func drain() {
    self.perform(self.machine.resume())
    self.perform(self.machine.start())
    var steps = 0
    while steps < 100_000 {
      steps += 1
      if let worker = self.workers.keys.sorted().first {
        self.finishWorker(worker, end: .succeeded, settles: false)
      } else if let node = self.evaluating.sorted().first {
        self.evaluating.remove(node)
        self.perform(self.machine.conditionsEvaluated(node, result: .satisfied))
      } else if let node = self.unsettled.sorted().first {
        self.unsettled.remove(node)
        self.perform(self.machine.settled(node))
      } else {
        break
      }
      self.checkInvariants()
    }
  }

  func checkOutcomes() {
    #expect(self.machine.lifecycle == .finished)
    #expect(self.completions == 1)
    #expect(self.ends.allSatisfy { $0 == 1 })
    #expect(self.machine.nodes.allSatisfy { $0.end != nil && $0.isSettled })
  }
}
