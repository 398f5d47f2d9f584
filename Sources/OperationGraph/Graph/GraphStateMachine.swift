/// The scheduling decisions of a ``WorkGraph``, as a pure value.
///
/// It knows nodes only by their index and decides, for every event, what must happen next: which
/// nodes start, which have their conditions evaluated, which workers are cancelled, when the run
/// is over. It performs nothing itself and holds no closures, so the tests drive it synchronously,
/// without concurrency; ``WorkGraph`` keeps it behind its lock and performs the actions it returns
/// after the lock is released.
///
/// A node moves through these phases:
///
/// ```
/// waiting ──(every dependency finished, the graph running)──▶ evaluating ──▶ ready ──▶ running
///    │                          │                                 │            │          │
///    │                          └──(no conditions)────────────────┘            │          │
///    └──────────(cancelled: once its dependencies finished)──▶ finished ◀──────┴──────────┘
/// ```
///
/// A running node is run by a *worker*, a task that may run several nodes one after another:
/// when its node finishes and another node is ready, the same worker takes it, so a chain of
/// nodes needs one task, not one per node. A worker whose node was cancelled has been cancelled
/// itself (cancellation of a task is for good), so it takes no further node.
package struct GraphStateMachine: Sendable {
  /// Where a node is in its life.
  package enum Phase: Hashable, Sendable {
    /// Waiting for its dependencies to finish, or for the graph to start running.
    case waiting
    /// Its conditions are being evaluated (and its mutual exclusion locks acquired).
    case evaluating
    /// Waiting in the queue for a free slot under the concurrency limit.
    case ready
    /// Its work runs on a worker.
    case running(worker: Int)
    /// Its work returned and its will-finish observers run; cancelling it does nothing any more.
    case finishing(worker: Int)
    /// It has an outcome.
    case finished
  }

  /// How a node ended.
  package enum End: Hashable, Sendable {
    case succeeded
    case failed
    case cancelled
    case notExecuted
  }

  /// What the graph as a whole is doing.
  package enum Lifecycle: Hashable, Sendable {
    /// Nodes are being added; none runs until the graph starts.
    case building
    /// Nodes run as soon as their dependencies allow.
    case running
    /// Every node has finished; nothing more can be added.
    case finished
  }

  /// What the graph must do after an event.
  package enum Action: Hashable, Sendable {
    /// Evaluate the node's conditions (and acquire its exclusivity locks), then report back with
    /// ``GraphStateMachine/conditionsEvaluated(_:result:)``.
    case evaluate(node: Int)
    /// Cancel the evaluation of the node's conditions.
    case cancelEvaluation(node: Int)
    /// Start a new worker task that runs the node.
    case startWorker(node: Int, worker: Int)
    /// Cancel the task of the worker.
    case cancelWorker(Int)
    /// The node ended without running: tell its observers and settle it.
    case endWithoutRunning(node: Int, end: End)
    /// Every node has finished and settled: resume whoever waits for the run.
    case completeRun
  }

  /// How the evaluation of a node's conditions ended.
  package enum ConditionsResult: Hashable, Sendable {
    /// Every condition is satisfied and the node holds its exclusivity locks.
    case satisfied
    /// A condition failed: the node ends without running.
    case failed
    /// A condition asked for the node to be cancelled, or the evaluation was cancelled.
    case cancelled
  }

  /// What follows a node's end on the worker that ran it.
  package struct Continuation: Hashable, Sendable {
    /// How the node ended, after any cancellation that came while it ran.
    package var end: End
    /// The node that the same worker runs next, if any.
    package var next: Int?
    /// The actions to perform.
    package var actions: [Action]
  }

  package struct Node: Sendable {
    package var dependencies: [Int]
    package var dependents = [Int]()
    package var unfinishedDependencyCount: Int
    package var needsEvaluation: Bool
    package var phase = Phase.waiting
    package var end: End?
    package var isCancellationRequested = false
    /// Whether the node ended at a deadline while its work still ran (see
    /// ``GraphStateMachine/abandon(_:)``): what that work returns later is discarded.
    package var isAbandoned = false
    package var isSettled = false

    /// Whether the node has ended, or its work has returned and it is about to.
    package var isEnding: Bool {
      switch self.phase {
      case .finishing, .finished: true
      default: false
      }
    }
  }

  package private(set) var nodes = [Node]()
  package private(set) var lifecycle = Lifecycle.building
  package private(set) var runningCount = 0
  package private(set) var isSuspended = false
  package private(set) var isCancelled = false
  package let concurrencyLimit: Int
  private var readyQueue = [Int]()
  private var readyQueueHead = 0
  private var unsettledCount = 0
  private var nextWorker = 0
  /// Whether every edge goes from a node to one added before it, as every edge that
  /// ``add(dependencies:needsEvaluation:isHeld:)`` makes does: then no path of dependencies
  /// leads from a node to a later one, and an edge to an earlier node cannot close a cycle.
  private var edgesPointToEarlierNodes = true

  /// Creates a state machine for a graph that runs at most `concurrencyLimit` nodes at once.
  package init(concurrencyLimit: Int) {
    precondition(concurrencyLimit > 0, "A graph's concurrency limit is checked before this.")
    self.concurrencyLimit = concurrencyLimit
  }

  /// The number of nodes waiting for a slot.
  package var readyCount: Int {
    self.readyQueue.count - self.readyQueueHead
  }

  // MARK: - Adding

  /// Adds a node that depends on the given nodes.
  ///
  /// - Complexity: O(*d*) for *d* dependencies: a dependency given twice counts once.
  /// - Returns: The new node's index and the actions to perform.
  /// - Throws: ``GraphStateMachineError`` when the graph has finished or a dependency does not
  ///   exist.
  ///
  /// - Parameters:
  ///   - dependencies: The nodes it waits for.
  ///   - needsEvaluation: Whether it has conditions to evaluate before it runs.
  ///   - isHeld: Whether it waits for ``release(_:)`` as well, so that its observers hear that
  ///     they were attached before it can start.
  package mutating func add(
    dependencies: [Int],
    needsEvaluation: Bool,
    isHeld: Bool = false
  ) throws(GraphStateMachineError) -> (node: Int, actions: [Action]) {
    guard self.lifecycle != .finished else { throw .finished }
    for dependency in dependencies where !self.nodes.indices.contains(dependency) {
      throw .unknownNode(dependency)
    }
    let index = self.nodes.count
    var unfinished = 0
    var unique = [Int]()
    unique.reserveCapacity(dependencies.count)
    // NB: A dependency met before in this list has the new node as its last dependent already:
    // that is the duplicate check, in O(1) instead of a search of `unique`.
    for dependency in dependencies where self.nodes[dependency].dependents.last != index {
      unique.append(dependency)
      self.nodes[dependency].dependents.append(index)
      if self.nodes[dependency].phase != .finished {
        unfinished += 1
      }
    }
    if isHeld {
      unfinished += 1
    }
    self.nodes.append(
      Node(
        dependencies: unique,
        unfinishedDependencyCount: unfinished,
        needsEvaluation: needsEvaluation,
        isCancellationRequested: self.isCancelled
      )
    )
    self.unsettledCount += 1
    var actions = [Action]()
    if self.lifecycle == .running && unfinished == 0 {
      self.becomeEligible(index, actions: &actions)
      self.fillSlots(actions: &actions, worker: nil)
    }
    return (index, actions)
  }

  /// Lets a node that was added held go, once its observers know of it.
  package mutating func release(_ node: Int) -> [Action] {
    self.nodes[node].unfinishedDependencyCount -= 1
    guard
      self.nodes[node].unfinishedDependencyCount == 0 && self.nodes[node].phase == .waiting
        && self.nodes[node].end == nil && self.lifecycle == .running
    else { return [] }
    var actions = [Action]()
    self.becomeEligible(node, actions: &actions)
    self.fillSlots(actions: &actions, worker: nil)
    return actions
  }

  /// Makes `node` depend on `dependency`.
  ///
  /// - Complexity: O(1) when `dependency` was added before `node` and every edge so far goes to
  ///   an earlier node (the graph is then acyclic by its order of addition), plus the search of
  ///   the shorter of `node`'s dependencies and `dependency`'s dependents for the edge; otherwise
  ///   also a search of `dependency`'s dependencies for a cycle.
  /// - Throws: ``GraphStateMachineError`` when either node does not exist, the node has started,
  ///   or the new edge would close a cycle (the error names the cycle).
  package mutating func addDependency(
    _ node: Int,
    on dependency: Int
  ) throws(GraphStateMachineError) {
    guard self.nodes.indices.contains(node) else { throw .unknownNode(node) }
    guard self.nodes.indices.contains(dependency) else { throw .unknownNode(dependency) }
    guard node != dependency else { throw .cycle([node, node]) }
    guard self.nodes[node].phase == .waiting, self.nodes[node].end == nil else {
      throw .nodeStarted(node)
    }
    // NB: The two lists mirror each other, so the shorter one says whether the edge exists.
    let exists =
      self.nodes[node].dependencies.count <= self.nodes[dependency].dependents.count
      ? self.nodes[node].dependencies.contains(dependency)
      : self.nodes[dependency].dependents.contains(node)
    guard !exists else { return }
    if !self.edgesPointToEarlierNodes || dependency > node {
      if let path = self.dependencyPath(from: dependency, to: node) {
        // NB: `path` runs from `dependency` down its dependencies to `node`; the new edge closes
        // it, since `node` would then wait for `dependency`.
        throw .cycle([node] + path)
      }
      if dependency > node {
        self.edgesPointToEarlierNodes = false
      }
    }
    self.nodes[node].dependencies.append(dependency)
    self.nodes[dependency].dependents.append(node)
    if self.nodes[dependency].phase != .finished {
      self.nodes[node].unfinishedDependencyCount += 1
    }
  }

  /// A path from `start` through dependencies to `target`, if `start` depends on `target`.
  private func dependencyPath(from start: Int, to target: Int) -> [Int]? {
    var parent = [Int: Int]()
    var stack = [start]
    var visited: Set<Int> = [start]
    while let current = stack.popLast() {
      if current == target {
        var path = [target]
        var step = target
        while let previous = parent[step] {
          path.append(previous)
          step = previous
        }
        return path.reversed()
      }
      for dependency in self.nodes[current].dependencies where visited.insert(dependency).inserted {
        parent[dependency] = current
        stack.append(dependency)
      }
    }
    return nil
  }

  // MARK: - Running

  /// Starts running the graph.
  ///
  /// - Returns: The actions to perform; none when the graph was already running or finished.
  package mutating func start() -> [Action] {
    guard self.lifecycle == .building else { return [] }
    self.lifecycle = .running
    var actions = [Action]()
    for index in self.nodes.indices
    where self.nodes[index].phase == .waiting && self.nodes[index].end == nil
      && self.nodes[index].unfinishedDependencyCount == 0
    {
      self.becomeEligible(index, actions: &actions)
    }
    self.fillSlots(actions: &actions, worker: nil)
    self.completeIfSettled(actions: &actions)
    return actions
  }

  /// Stops starting nodes; running nodes go on.
  package mutating func suspend() {
    self.isSuspended = true
  }

  /// Starts nodes again after ``suspend()``.
  package mutating func resume() -> [Action] {
    guard self.isSuspended else { return [] }
    self.isSuspended = false
    var actions = [Action]()
    self.fillSlots(actions: &actions, worker: nil)
    return actions
  }

  /// The evaluation of a node's conditions ended.
  package mutating func conditionsEvaluated(_ node: Int, result: ConditionsResult) -> [Action] {
    guard self.nodes[node].phase == .evaluating else {
      preconditionFailure("Conditions were evaluated for a node that was not evaluating them.")
    }
    var actions = [Action]()
    if self.nodes[node].isCancellationRequested || result == .cancelled {
      self.end(node, .cancelled, actions: &actions)
    } else if result == .failed {
      self.end(node, .notExecuted, actions: &actions)
    } else {
      self.nodes[node].phase = .ready
      self.readyQueue.append(node)
      self.fillSlots(actions: &actions, worker: nil)
    }
    return actions
  }

  /// The work of a running node returned; its will-finish observers run next.
  ///
  /// - Returns: How the node ended: cancelled if it was cancelled while it ran, whatever its
  ///   work returned.
  package mutating func workReturned(_ node: Int, end: End) -> End {
    guard case .running(let worker) = self.nodes[node].phase else {
      preconditionFailure("The work of a node returned while it was not running.")
    }
    self.nodes[node].phase = .finishing(worker: worker)
    return self.nodes[node].isCancellationRequested ? .cancelled : end
  }

  /// A running (or finishing) node has ended on its worker.
  ///
  /// - Parameters:
  ///   - end: How its work ended; a cancellation that came first wins.
  ///   - settles: Whether it has no did-finish observers left to call, so that it settles now.
  /// - Returns: How the node ended, the next node for the same worker, and the actions.
  package mutating func finished(_ node: Int, end: End, settles: Bool) -> Continuation {
    let worker: Int
    switch self.nodes[node].phase {
    case .running(let runningWorker), .finishing(let runningWorker):
      worker = runningWorker
    default:
      preconditionFailure("A node finished that was not running.")
    }
    let end = self.nodes[node].isCancellationRequested ? End.cancelled : end
    self.runningCount -= 1
    var actions = [Action]()
    self.markEnded(node, end, actions: &actions)
    // NB: A worker whose node was cancelled has had its task cancelled, for good: it takes no
    // further node, and the slot goes to a new worker. So has a worker whose node was
    // abandoned, and it still runs that node's work.
    let reusable = !self.nodes[node].isCancellationRequested && !self.nodes[node].isAbandoned
    var next: Int?
    if reusable {
      next = self.fillSlots(actions: &actions, worker: worker)
    } else {
      self.fillSlots(actions: &actions, worker: nil)
    }
    if settles {
      self.settle(node, actions: &actions)
    }
    return Continuation(end: end, next: next, actions: actions)
  }

  /// The deadline of a running node has passed (a ``TimeoutObserver``'s): the node ends now,
  /// whatever its work does, instead of when its work returns.
  ///
  /// The node moves on as if its work had returned: its will-finish observers run next, then
  /// ``finished(_:end:settles:)`` frees its slot and releases its dependents. Its worker's task
  /// is cancelled and left to the work: it takes no further node, and nothing it returns counts
  /// (``Node/isAbandoned``).
  ///
  /// - Returns: How the node ends (failed, or cancelled when a cancellation came first) and the
  ///   actions to perform; `nil` when the node is not running (its work returned first, or it
  ///   never started), so that the deadline changes nothing.
  package mutating func abandon(_ node: Int) -> (end: End, actions: [Action])? {
    guard self.nodes.indices.contains(node), case .running(let worker) = self.nodes[node].phase
    else { return nil }
    var actions = [Action]()
    if !self.nodes[node].isCancellationRequested {
      actions.append(.cancelWorker(worker))
    }
    self.nodes[node].isAbandoned = true
    self.nodes[node].phase = .finishing(worker: worker)
    return (self.nodes[node].isCancellationRequested ? .cancelled : .failed, actions)
  }

  /// A node's did-finish observers have returned.
  package mutating func settled(_ node: Int) -> [Action] {
    var actions = [Action]()
    self.settle(node, actions: &actions)
    return actions
  }

  // MARK: - Cancelling

  /// Cancels a node.
  ///
  /// A node that waits for its dependencies stays in the graph until they finish, then ends
  /// cancelled without running, so that nothing that depends on it starts before its own
  /// dependencies have finished.
  ///
  /// - Returns: Whether this is the node's first cancellation (its observers hear of it once),
  ///   and the actions to perform.
  package mutating func cancel(_ node: Int) -> (isFirst: Bool, actions: [Action]) {
    guard self.nodes.indices.contains(node), self.nodes[node].end == nil else { return (false, []) }
    let isFirst = !self.nodes[node].isCancellationRequested
    var actions = [Action]()
    switch self.nodes[node].phase {
    case .finishing, .finished:
      return (false, [])
    case .waiting:
      self.nodes[node].isCancellationRequested = true
    case .evaluating:
      self.nodes[node].isCancellationRequested = true
      if isFirst {
        actions.append(.cancelEvaluation(node: node))
      }
    case .ready:
      self.nodes[node].isCancellationRequested = true
      self.end(node, .cancelled, actions: &actions)
    case .running(let worker):
      self.nodes[node].isCancellationRequested = true
      if isFirst {
        actions.append(.cancelWorker(worker))
      }
    }
    return (isFirst, actions)
  }

  /// Cancels every node that has not finished, and every node added from now on.
  ///
  /// - Returns: The nodes cancelled for the first time, and the actions to perform.
  package mutating func cancelAll() -> (cancelled: [Int], actions: [Action]) {
    self.isCancelled = true
    var cancelled = [Int]()
    var actions = [Action]()
    for index in self.nodes.indices where self.nodes[index].end == nil {
      let (isFirst, nodeActions) = self.cancel(index)
      if isFirst {
        cancelled.append(index)
      }
      actions += nodeActions
    }
    return (cancelled, actions)
  }

  // MARK: - Helpers

  /// A node whose dependencies have all finished, in a running graph.
  ///
  /// It does not start anything: the caller fills the free slots once the event is handled.
  private mutating func becomeEligible(_ node: Int, actions: inout [Action]) {
    if self.nodes[node].isCancellationRequested {
      // NB: The node's end comes before the ends it causes, so observers hear them in order.
      actions.append(.endWithoutRunning(node: node, end: .cancelled))
      self.markEnded(node, .cancelled, actions: &actions)
    } else {
      self.prepare(node, actions: &actions)
    }
  }

  /// Sends an eligible node that was not cancelled to its conditions or to the ready queue.
  private mutating func prepare(_ node: Int, actions: inout [Action]) {
    if self.nodes[node].needsEvaluation {
      self.nodes[node].phase = .evaluating
      actions.append(.evaluate(node: node))
    } else {
      self.nodes[node].phase = .ready
      self.readyQueue.append(node)
    }
  }

  /// Starts ready nodes while slots are free; the first goes to `worker` when one is given.
  ///
  /// - Returns: The node given to `worker`, if any.
  @discardableResult
  private mutating func fillSlots(actions: inout [Action], worker: Int?) -> Int? {
    var idleWorker = worker
    var given: Int?
    while !self.isSuspended && self.runningCount < self.concurrencyLimit,
      let node = self.popReady()
    {
      self.runningCount += 1
      if let worker = idleWorker {
        idleWorker = nil
        given = node
        self.nodes[node].phase = .running(worker: worker)
      } else {
        let worker = self.nextWorker
        self.nextWorker += 1
        self.nodes[node].phase = .running(worker: worker)
        actions.append(.startWorker(node: node, worker: worker))
      }
    }
    return given
  }

  private mutating func popReady() -> Int? {
    while self.readyQueueHead < self.readyQueue.count {
      let node = self.readyQueue[self.readyQueueHead]
      self.readyQueueHead += 1
      if self.readyQueueHead == self.readyQueue.count {
        self.readyQueue.removeAll(keepingCapacity: true)
        self.readyQueueHead = 0
      } else if self.readyQueueHead >= 1024 && self.readyQueueHead * 2 >= self.readyQueue.count {
        self.readyQueue.removeFirst(self.readyQueueHead)
        self.readyQueueHead = 0
      }
      // NB: A node cancelled while it was ready ended at once and stays in the queue until here.
      if self.nodes[node].phase == .ready {
        return node
      }
    }
    return nil
  }

  /// Ends a node that does not run (any more), cancelled or not executed, and starts what that
  /// made ready.
  private mutating func end(_ node: Int, _ end: End, actions: inout [Action]) {
    actions.append(.endWithoutRunning(node: node, end: end))
    self.markEnded(node, end, actions: &actions)
    self.fillSlots(actions: &actions, worker: nil)
  }

  /// Records a node's end and releases the nodes that waited for it.
  ///
  /// A released node that was cancelled ends at once, which releases its own dependents: a
  /// work list instead of recursion keeps a long cancelled chain from growing the stack.
  private mutating func markEnded(_ node: Int, _ end: End, actions: inout [Action]) {
    var ended = [node]
    var next = 0
    self.nodes[node].phase = .finished
    self.nodes[node].end = end
    while next < ended.count {
      let current = ended[next]
      next += 1
      for dependent in self.nodes[current].dependents {
        self.nodes[dependent].unfinishedDependencyCount -= 1
        guard
          self.nodes[dependent].unfinishedDependencyCount == 0
            && self.nodes[dependent].phase == .waiting && self.nodes[dependent].end == nil
            && self.lifecycle == .running
        else { continue }
        if self.nodes[dependent].isCancellationRequested {
          self.nodes[dependent].phase = .finished
          self.nodes[dependent].end = .cancelled
          actions.append(.endWithoutRunning(node: dependent, end: .cancelled))
          ended.append(dependent)
        } else {
          self.prepare(dependent, actions: &actions)
        }
      }
    }
  }

  private mutating func settle(_ node: Int, actions: inout [Action]) {
    guard !self.nodes[node].isSettled else {
      preconditionFailure("A node settled twice.")
    }
    self.nodes[node].isSettled = true
    self.unsettledCount -= 1
    self.completeIfSettled(actions: &actions)
  }

  private mutating func completeIfSettled(actions: inout [Action]) {
    if self.lifecycle == .running && self.unsettledCount == 0 {
      self.lifecycle = .finished
      actions.append(.completeRun)
    }
  }
}

/// Why the state machine refused an edit of the graph.
package enum GraphStateMachineError: Error, Hashable, Sendable {
  /// The graph has finished running.
  case finished
  /// No node has this index.
  case unknownNode(Int)
  /// The node has started (or ended) already.
  case nodeStarted(Int)
  /// The edge would close this cycle: each node depends on the one after it.
  case cycle([Int])
}
