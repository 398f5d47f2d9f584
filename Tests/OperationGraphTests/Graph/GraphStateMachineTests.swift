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
