@_spi(Warnings) import OperationCore
import Synchronization
import OperationSynchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Runs pieces of work with dependencies between them: a directed acyclic graph of nodes, run on
/// structured concurrency.
///
/// Add nodes (requests, closures, stores, groups), say which nodes each waits for, then run the
/// graph. A node starts when every node it depends on has finished, its conditions are satisfied
/// and a slot under the concurrency limit is free; the run returns when every node has finished,
/// including nodes added while it runs.
///
/// ```swift
/// let graph = WorkGraph(maxConcurrentNodes: 4)
/// let user = try graph.add(UserRequest(id: 1))
/// let posts = try graph.add(PostsRequest(userID: 1))
/// let feed = try graph.add(after: [user, posts]) { context in
///   Feed(user: try context.value(of: user), posts: try context.value(of: posts))
/// }
/// let report = await graph.run()
/// print(graph.result(of: feed) as Any)
/// print(report.errors)
/// ```
///
/// The contract:
/// - A node runs at most once, and only after all of its dependencies have finished, whatever
///   their outcome: a plain dependency orders work, it does not gate it. To run only after
///   dependencies that succeeded, add a ``NoFailedDependenciesCondition``, or consume a
///   dependency's value with ``add(consuming:name:conditions:observers:_:)``.
/// - At most `maxConcurrentNodes` nodes run at once; nodes start in the order they became ready.
/// - Adding a dependency that would close a cycle throws ``GraphError`` with the cycle; a graph
///   never hangs on a cycle.
/// - Cancelling a node that has not started ends it without running, once its own dependencies
///   have finished; so does cancelling it before its work starts (from one of its observers'
///   `willStart` or `didStart`, say). Cancelling a running node cancels its task, and the node
///   ends ``NodeOutcome/cancelled(_:)`` whatever its work returns. Cancelling the task that
///   awaits ``run()`` cancels every node.
/// - A node under a ``TimeoutObserver`` ends at its deadline, failed with the timeout error,
///   even when its work ignores cancellation; its dependents, its slot and ``run()`` do not wait
///   for that work, whose late result is discarded.
/// - Adding a node costs O(*n*) in its *n* dependencies.
/// - Every wait (a delay, a timeout, a retry's backoff) reads the delayer and clock of the
///   graph's `context`, so tests never sleep.
///
/// A graph runs once. Nodes can be added until its run has finished.
public final class WorkGraph: Sendable {
  /// The graph's name, if it was given one.
  public let name: String?

  /// The most nodes that run at once.
  public let maxConcurrentNodes: Int

  /// The context every node's work runs with.
  public let context: OperationContext

  /// The progress of the whole graph: one unit per node, the total growing as nodes are added.
  ///
  /// A node counts whole when it ends, whatever its outcome; while it runs, the progress its
  /// work reports through its context's `progressReporter` counts as a part of its unit (a
  /// request that is a chain reports each step). Observe it with
  /// ``ProgressReporter/updates``, ``ProgressReporter/onChange(_:)``, or as a Foundation
  /// `Progress` with ``ProgressReporter/foundationProgress()``.
  ///
  /// ```swift
  /// let graph = WorkGraph()
  /// // add nodes…
  /// Task {
  ///   for await progress in graph.progress.updates {
  ///     print("\(Int(progress.fractionCompleted * 100))%")
  ///   }
  /// }
  /// await graph.run()
  /// ```
  public let progress: ProgressReporter

  package let identity: Int
  private let observers: [any GraphObserver]
  private let state: Lock<State>

  /// Creates an empty graph.
  ///
  /// - Parameters:
  ///   - name: The graph's name, for logs.
  ///   - maxConcurrentNodes: The most nodes that run at once; at least 1 (a smaller number is
  ///     reported as an issue and taken as 1).
  ///   - context: The context every node runs with: its delayer and clock serve every wait.
  ///   - observers: Observers attached to every node of the graph, as a queue's delegate is.
  public init(
    name: String? = nil,
    maxConcurrentNodes: Int = 64,
    context: OperationContext = OperationContext(),
    observers: [any GraphObserver] = []
  ) {
    var limit = maxConcurrentNodes
    if limit < 1 {
      reportWarning(.graphConcurrencyLimit(limit))
      limit = 1
    }
    self.name = name
    self.maxConcurrentNodes = limit
    self.context = context
    self.observers = observers
    self.progress = ProgressReporter(totalUnitCount: 0)
    self.identity = nextGraphIdentity.add(1, ordering: .relaxed).newValue
    self.state = Lock(State(machine: GraphStateMachine(concurrencyLimit: limit)))
  }

  // MARK: - Running

  /// Runs the graph until every node has finished, including nodes added while it runs.
  ///
  /// Calling it again while the graph runs waits for the same run; calling it after the run
  /// returns the same report at once. Cancelling the calling task cancels every node.
  ///
  /// - Returns: The report of every node.
  @discardableResult
  public func run() async -> GraphReport {
    await self.run(cancellationErrors: { [] })
  }

  /// Runs the graph; a cancellation of the calling task cancels every node with the errors that
  /// `cancellationErrors` gives then.
  package func run(cancellationErrors: @escaping @Sendable () -> [any Error]) async -> GraphReport {
    self.start()
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let isFinished = self.state.withLock { state in
          guard state.machine.lifecycle != .finished else { return true }
          state.runWaiters.append(continuation)
          return false
        }
        if isFinished {
          continuation.resume()
        }
      }
    } onCancel: {
      self.cancelAll(with: cancellationErrors())
    }
    return self.report
  }

  /// Starts the graph's run without waiting for it.
  package func start() {
    let now = self.context.operationClock.now()
    let actions = self.state.withLock { state in
      let actions = state.machine.start()
      state.record(actions, now: now)
      return actions
    }
    self.perform(actions)
  }

  /// The errors a node was cancelled with so far.
  package func cancellationErrors(of node: GraphNodeID) -> [any Error] {
    self.state.withLock { $0.payloads[node.index].cancellationErrors }
  }

  /// Stops starting nodes; nodes that run go on. Nodes whose dependencies finish meanwhile wait
  /// as ``NodeStatus/ready``.
  public func suspend() {
    self.state.withLock { $0.machine.suspend() }
  }

  /// Starts nodes again after ``suspend()``.
  public func resume() {
    let now = self.context.operationClock.now()
    self.perform(
      self.state.withLock { state in
        let actions = state.machine.resume()
        state.record(actions, now: now)
        return actions
      }
    )
  }

  /// Whether the graph is suspended.
  public var isSuspended: Bool {
    self.state.withLock { $0.machine.isSuspended }
  }

  /// Whether every node of a graph that ran has finished.
  public var isFinished: Bool {
    self.state.withLock { $0.machine.lifecycle == .finished }
  }

  // MARK: - Cancelling

  /// Cancels a node.
  ///
  /// A node that has not started ends ``NodeOutcome/cancelled(_:)`` without running, once its
  /// own dependencies have finished (nodes that depend on it still run after it, as they would
  /// after a node that failed). A running node's task is cancelled, and the node ends cancelled
  /// whatever its work returns. A finished node stays as it was. Observers hear of the first
  /// cancellation only.
  ///
  /// - Parameters:
  ///   - node: A node of this graph.
  ///   - errors: Errors to end the node with (a timeout, say); cancelling a group with errors
  ///     cancels its children with a ``GraphParentCancelledError`` that carries them.
  public func cancel(_ node: some GraphNodeReference, with errors: [any Error] = []) {
    guard node.id.graph == self.identity else { return }
    let index = node.id.index
    let now = self.context.operationClock.now()
    let (actions, info) = self.state.withLock {
      state -> ([GraphStateMachine.Action], NodeInfo?) in
      guard state.machine.nodes.indices.contains(index),
        !state.machine.nodes[index].isEnding
      else { return ([], nil) }
      state.payloads[index].cancellationErrors += errors
      let (isFirst, actions) = state.machine.cancel(index)
      state.record(actions, now: now)
      return (actions, isFirst ? state.takeCancelNotification(index, info: self.info(_:in:)) : nil)
    }
    if let info {
      self.notifyCancelled(info, errors: errors)
    }
    self.perform(actions)
  }

  /// Cancels every node that has not finished, and every node added from now on.
  ///
  /// - Parameter errors: Errors to end the nodes with.
  public func cancelAll(with errors: [any Error] = []) {
    let now = self.context.operationClock.now()
    let (infos, actions) = self.state.withLock {
      state -> ([NodeInfo], [GraphStateMachine.Action]) in
      state.cancellationErrors += errors
      for index in state.machine.nodes.indices where !state.machine.nodes[index].isEnding {
        state.payloads[index].cancellationErrors += errors
      }
      let (cancelled, actions) = state.machine.cancelAll()
      state.record(actions, now: now)
      let infos = cancelled.compactMap { index in
        state.takeCancelNotification(index, info: self.info(_:in:))
      }
      return (infos, actions)
    }
    for info in infos {
      self.notifyCancelled(info, errors: errors)
    }
    self.perform(actions)
  }

  // MARK: - Reading

  /// The result of a node: its value, its error (a ``GraphAggregateError`` when it has
  /// several), or a ``GraphNoResultError`` when it was cancelled or did not run; `nil` while it
  /// has not finished.
  ///
  /// - Parameter node: A node of this graph.
  /// - Returns: The result, once the node has finished.
  public func result<Value>(of node: GraphNode<Value>) -> Result<Value, any Error>? {
    guard node.id.graph == self.identity else { return nil }
    return self.state.withLock { state -> Result<any Sendable, any Error>? in
      guard state.payloads.indices.contains(node.id.index) else { return nil }
      return state.payloads[node.id.index].result(of: node.id)
    }
    .map { result in
      result.flatMap { value in
        guard let value = value as? Value else {
          preconditionFailure("A node's value is not of its node's type.")
        }
        return .success(value)
      }
    }
  }

  /// The report of a node: its status and when it ran.
  ///
  /// - Parameter node: A node of this graph.
  /// - Returns: The report.
  public func report(of node: some GraphNodeReference) -> NodeReport {
    precondition(node.id.graph == self.identity, "The node belongs to another graph.")
    return self.state.withLock { state in state.report(node.id.index, graph: self.identity) }
  }

  /// The reports of every node, in the order they were added.
  public var report: GraphReport {
    self.state.withLock { state in
      GraphReport(
        nodes: state.payloads.indices.map { state.report($0, graph: self.identity) }
      )
    }
  }

  /// The nodes a node waits for: those it was added after, those added with
  /// ``addDependency(_:on:)``, and its conditions' dependencies, in the order they were added.
  ///
  /// - Parameter node: A node of this graph.
  /// - Returns: Its dependencies.
  public func dependencies(of node: some GraphNodeReference) -> [GraphNodeID] {
    precondition(node.id.graph == self.identity, "The node belongs to another graph.")
    return self.state.withLock { state in
      state.machine.nodes[node.id.index].dependencies.map {
        GraphNodeID(graph: self.identity, index: $0)
      }
    }
  }

  /// The number of nodes in the graph.
  public var nodeCount: Int {
    self.state.withLock { $0.payloads.count }
  }

  // MARK: - Adding

  /// Adds a node; the one method that every way of adding goes through.
  package func add<Value: Sendable>(
    _ work: GraphWork<Value>,
    after dependencies: [any GraphNodeReference],
    conditions: [any GraphCondition],
    observers: [any GraphObserver],
    producer: GraphNodeID? = nil,
    onEndWithoutRunning: (@Sendable (_ cancellationErrors: [any Error]) -> Void)? = nil
  ) throws(GraphError) -> GraphNode<Value> {
    for dependency in dependencies where dependency.id.graph != self.identity {
      throw GraphError(
        code: .unknownNode,
        nodes: [dependency.id],
        message: """
          Node \(dependency.id) belongs to another graph, so a node of \
          \(self.displayName) cannot depend on it. Add the node to this graph, or make the other \
          graph a group of this one.
          """
      )
    }
    let body = work.body
    let erased: NodeBody = { context in try await body(context) }
    let dependencyIndices = dependencies.map(\.id.index)
    let now = self.context.operationClock.now()
    // NB: Conditions and observers are the user's types: what they say is read here, before the
    // graph's lock is taken, never under it. A producer's observers do not change once it was
    // added, so reading them under a lock of their own is as good as under the main one.
    let conditionWork = conditions.compactMap { condition -> (name: String, body: NodeBody)? in
      guard let dependency = condition.dependency else { return nil }
      let dependencyBody = dependency.body
      return (
        dependency.name ?? "Dependency of \(condition.name)",
        { context in try await dependencyBody(context) }
      )
    }
    let categories = Array(Set(conditions.compactMap(\.mutualExclusionCategory))).sorted()
    let producerObservers =
      producer.map { producer in
        self.state.withLock { state in
          state.payloads.indices.contains(producer.index)
            ? state.payloads[producer.index].observers : []
        }
      } ?? []
    let nodeObservers =
      self.observers + observers + producerObservers.filter(\.attachesToProducedNodes)
    let isHeld = !nodeObservers.isEmpty || !producerObservers.isEmpty
    // NB: The node's unit of progress (and its conditions' dependencies') exists before the node
    // can start, so that no node completes a unit the total does not count yet; a refused add
    // takes it back.
    let addedCount = Int64(1 + conditionWork.count)
    self.progress.increaseTotalUnitCount(by: addedCount)
    let outcome = self.state.withLock { state -> Result<Addition, GraphError> in
      var actions = [GraphStateMachine.Action]()
      do throws(GraphStateMachineError) {
        var conditionDependencies = [Int]()
        for dependency in conditionWork {
          let added = try state.machine.add(
            dependencies: dependencyIndices,
            needsEvaluation: false
          )
          state.append(NodePayload(name: dependency.name, body: dependency.body))
          actions += added.actions
          conditionDependencies.append(added.node)
        }
        let added = try state.machine.add(
          dependencies: dependencyIndices + conditionDependencies,
          needsEvaluation: !conditions.isEmpty,
          isHeld: isHeld
        )
        var payload = NodePayload(name: work.name, body: erased)
        payload.conditions = conditions
        payload.categories = categories
        payload.observers = nodeObservers
        payload.isAttaching = isHeld
        payload.onEndWithoutRunning = onEndWithoutRunning
        state.append(payload)
        actions += added.actions
        state.record(actions, now: now)
        return .success(
          Addition(
            node: added.node,
            actions: actions,
            observers: nodeObservers,
            info: isHeld ? self.info(added.node, in: state) : nil,
            producerObservers: producerObservers,
            producerInfo: producer.flatMap {
              producerObservers.isEmpty ? nil : self.info($0.index, in: state)
            }
          )
        )
      } catch {
        return .failure(self.graphError(error, in: state))
      }
    }
    let addition: Addition
    do {
      addition = try outcome.get()
    } catch {
      self.progress.increaseTotalUnitCount(by: -addedCount)
      throw error
    }
    self.perform(addition.actions)
    if let info = addition.info {
      for observer in addition.observers {
        observer.didAttach(to: info)
      }
      if let producerInfo = addition.producerInfo {
        for observer in addition.producerObservers {
          observer.didProduce(info, from: producerInfo)
        }
      }
      // NB: A cancellation that came while the observers were being attached (or before: the
      // graph was cancelled) is told now, after didAttach, and before the node can end.
      let errors = self.state.withLock { state -> [any Error]? in
        state.payloads[addition.node].isAttaching = false
        guard state.machine.nodes[addition.node].isCancellationRequested else { return nil }
        return state.takeCancelNotification(addition.node, info: self.info(_:in:)) == nil
          ? nil : state.payloads[addition.node].cancellationErrors
      }
      if let errors {
        for observer in addition.observers {
          observer.didCancel(info, errors: errors)
        }
      }
      let now = self.context.operationClock.now()
      self.perform(
        self.state.withLock { state in
          let actions = state.machine.release(addition.node)
          state.record(actions, now: now)
          return actions
        }
      )
    }
    return GraphNode(id: GraphNodeID(graph: self.identity, index: addition.node), name: work.name)
  }

  /// What adding a node decided under the lock, to perform after it.
  private struct Addition {
    let node: Int
    let actions: [GraphStateMachine.Action]
    let observers: [any GraphObserver]
    let info: NodeInfo?
    let producerObservers: [any GraphObserver]
    let producerInfo: NodeInfo?
  }

  /// Makes a node wait for another.
  ///
  /// - Parameters:
  ///   - node: A node of this graph that has not started.
  ///   - dependency: A node of this graph it waits for.
  /// - Throws: ``GraphError`` when a node belongs to another graph, `node` has started, or the
  ///   dependency would close a cycle (the error lists the cycle).
  public func addDependency(
    _ node: some GraphNodeReference,
    on dependency: some GraphNodeReference
  ) throws(GraphError) {
    for id in [node.id, dependency.id] where id.graph != self.identity {
      throw GraphError(
        code: .unknownNode,
        nodes: [id],
        message: "Node \(id) belongs to another graph than \(self.displayName)."
      )
    }
    let failure = self.state.withLock { state -> GraphError? in
      do throws(GraphStateMachineError) {
        try state.machine.addDependency(node.id.index, on: dependency.id.index)
        return nil
      } catch {
        return self.graphError(error, in: state)
      }
    }
    if let failure {
      throw failure
    }
  }

  // MARK: - Internals

  private var displayName: String {
    self.name.map { "graph '\($0)'" } ?? "the graph"
  }

  private func graphError(_ error: GraphStateMachineError, in state: State) -> GraphError {
    let id = { (index: Int) in GraphNodeID(graph: self.identity, index: index) }
    let label = { (index: Int) -> String in
      let name = state.payloads.indices.contains(index) ? state.payloads[index].name : nil
      return name.map { "\(id(index)) '\($0)'" } ?? "\(id(index))"
    }
    switch error {
    case .finished:
      return GraphError(
        code: .graphFinished,
        nodes: [],
        message: """
          \(self.displayName.prefix(1).uppercased() + self.displayName.dropFirst()) has finished \
          running, so nothing can be added to it. Add nodes before its run ends, or use a new graph.
          """
      )
    case .unknownNode(let index):
      return GraphError(
        code: .unknownNode,
        nodes: [id(index)],
        message: "Node \(id(index)) is not a node of \(self.displayName)."
      )
    case .nodeStarted(let index):
      return GraphError(
        code: .nodeStarted,
        nodes: [id(index)],
        message: """
          Node \(label(index)) has started or ended, so it cannot wait for another node any more. \
          Add dependencies before the graph runs, or pass them when you add the node.
          """
      )
    case .cycle(let path):
      return GraphError(
        code: .cycle,
        nodes: path.map(id),
        message: """
          Adding this dependency would make a cycle, so the graph refused it: \
          \(path.map(label).joined(separator: " → ")) (each node waits for the next).
          """
      )
    }
  }

  private func info(_ index: Int, in state: State) -> NodeInfo {
    NodeInfo(
      id: GraphNodeID(graph: self.identity, index: index),
      name: state.payloads[index].name,
      graph: self,
      operationContext: self.context
    )
  }

  private func notifyCancelled(_ info: NodeInfo, errors: [any Error]) {
    for observer in self.state.withLock({ $0.payloads[info.id.index].observers }) {
      observer.didCancel(info, errors: errors)
    }
  }

  /// Performs what the state machine decided, with no lock held.
  private func perform(_ actions: [GraphStateMachine.Action]) {
    for action in actions {
      switch action {
      case .evaluate(let node):
        self.startTask(.evaluation(node)) { await self.evaluate(node) }
      case .cancelEvaluation(let node):
        self.cancelTask(.evaluation(node))
      case .startWorker(let node, let worker):
        self.startTask(.worker(worker)) { await self.runWorker(worker, startingWith: node) }
      case .cancelWorker(let worker):
        self.cancelTask(.worker(worker))
      case .endWithoutRunning(let node, let end):
        self.endWithoutRunning(node, end: end)
      case .completeRun:
        let waiters = self.state.withLock { state in
          defer { state.runWaiters.removeAll() }
          return state.runWaiters
        }
        for waiter in waiters {
          waiter.resume()
        }
      }
    }
  }

  /// Starts the task that an action asked for; its key is live since that decision.
  private func startTask(_ key: TaskKey, _ body: @escaping @Sendable () async -> Void) {
    let task = Task {
      await body()
      self.state.withLock { state in
        state.liveTasks.remove(key)
        state.tasks[key] = nil
        state.pendingCancellations.remove(key)
      }
    }
    let cancels = self.state.withLock { state -> Bool in
      guard state.liveTasks.contains(key) else { return false }
      state.tasks[key] = task
      return state.pendingCancellations.remove(key) != nil
    }
    if cancels {
      task.cancel()
    }
  }

  private func cancelTask(_ key: TaskKey) {
    let task = self.state.withLock { state -> Task<Void, Never>? in
      if let task = state.tasks[key] { return task }
      if state.liveTasks.contains(key) {
        state.pendingCancellations.insert(key)
      }
      return nil
    }
    task?.cancel()
  }

  private func endWithoutRunning(_ node: Int, end: GraphStateMachine.End) {
    let (observers, info, finalizer, errors) = self.state.withLock {
      state -> ([any GraphObserver], NodeInfo?, (@Sendable ([any Error]) -> Void)?, [any Error]) in
      let observers = state.payloads[node].observers
      let info = observers.isEmpty ? nil : self.info(node, in: state)
      let errors = end == .cancelled ? state.payloads[node].cancellationErrors : []
      return (observers, info, state.payloads[node].onEndWithoutRunning, errors)
    }
    finalizer?(errors)
    self.progress.advance(by: 1)
    if let info {
      let outcome = self.state.withLock { $0.payloads[node].outcome }
      for observer in observers {
        observer.willFinish(info, outcome: outcome)
      }
      // NB: Read after the will-finish observers, as the contract of `GraphObserver` says.
      let now = self.context.operationClock.now()
      self.state.withLock { $0.payloads[node].finishedAt = now }
      for observer in observers {
        observer.didFinish(info, outcome: outcome)
      }
    }
    self.perform(self.state.withLock { $0.machine.settled(node) })
  }

  /// Evaluates a node's conditions, then acquires its exclusivity locks.
  private func evaluate(_ node: Int) async {
    let (conditions, conditionContext) = self.state.withLock { state in
      let dependencies = state.machine.nodes[node].dependencies.map {
        state.report($0, graph: self.identity)
      }
      return (
        state.payloads[node].conditions,
        ConditionContext(node: self.info(node, in: state), dependencies: dependencies)
      )
    }
    var failures = [any Error]()
    var isCancelled = false
    if conditions.count == 1 {
      switch await conditions[0].evaluate(in: conditionContext) {
      case .satisfied: break
      case .failed(let error): failures.append(error)
      case .cancelled: isCancelled = true
      }
    } else {
      let results = await withTaskGroup(of: (Int, ConditionResult).self) { group in
        for (position, condition) in conditions.enumerated() {
          group.addTask { (position, await condition.evaluate(in: conditionContext)) }
        }
        var results = [ConditionResult?](repeating: nil, count: conditions.count)
        for await (position, result) in group {
          results[position] = result
        }
        return results
      }
      for result in results {
        switch result {
        case .satisfied, nil: break
        case .failed(let error): failures.append(error)
        case .cancelled: isCancelled = true
        }
      }
    }
    let result: GraphStateMachine.ConditionsResult =
      if isCancelled || Task.isCancelled { .cancelled } else if !failures.isEmpty { .failed } else {
        .satisfied
      }
    let now = self.context.operationClock.now()
    let actions = self.state.withLock { state in
      state.payloads[node].conditionErrors = failures
      let actions = state.machine.conditionsEvaluated(node, result: result)
      state.record(actions, now: now)
      return actions
    }
    self.perform(actions)
  }

  /// Runs nodes on one worker task until the state machine gives it no further node.
  private func runWorker(_ worker: Int, startingWith first: Int) async {
    var next: Int? = first
    while let node = next {
      next = await self.runNode(node)
    }
  }

  /// Runs one node on the current worker.
  ///
  /// A node whose cancellation came before its work starts (while its worker task was being
  /// made, while it waited for its mutual exclusion locks, or from one of its observers'
  /// `willStart` or `didStart`) ends cancelled without running its work. A node that ended at
  /// its deadline (``end(_:atDeadlineWith:)``) while its work ran is left to the deadline: what
  /// the work returns is discarded.
  ///
  /// - Returns: The node the same worker runs next.
  private func runNode(_ node: Int) async -> Int? {
    let clock = self.context.operationClock
    // NB: The clock is read before the lock is taken: it may be the user's.
    let now = clock.now()
    let (body, observers, info, name, categories, direct) = self.state.withLock {
      state -> (NodeBody, [any GraphObserver], NodeInfo?, String?, [String], DirectStart?) in
      let observers = state.payloads[node].observers
      let categories = state.payloads[node].categories
      // NB: The work runs once (or never), so the graph lets go of it (and of what it captured)
      // now.
      let body = state.payloads[node].body
      state.payloads[node].body = nil
      guard let body else {
        preconditionFailure("A node's work started twice.")
      }
      // NB: A node with neither observers nor exclusivity categories starts here, in the same
      // lock as it is taken: one lock to start it.
      var direct: DirectStart?
      if observers.isEmpty && categories.isEmpty {
        direct = state.beginWork(node, at: now, progress: self.progress)
      }
      return (
        body,
        observers,
        observers.isEmpty ? nil : self.info(node, in: state),
        state.payloads[node].name,
        categories,
        direct
      )
    }
    let reporter: ProgressReporter
    switch direct {
    case .run(let directReporter):
      reporter = directReporter
    case .cancelled:
      return self.endBeforeWork(node, observers: [], info: nil, held: [])
    case .abandoned:
      return nil
    case nil:
      // NB: The exclusivity locks are taken here, by a node that holds a slot and so will run:
      // a node that waits for a slot holds none, so a suspended graph or a full one keeps no
      // category from the rest of the process, and a node that waits for a category waits only
      // for nodes that are running.
      let held = await Self.acquire(categories)
      guard held.count == categories.count else {
        return self.endBeforeWork(node, observers: observers, info: info, held: [])
      }
      // NB: Stored with the node, so that a deadline that ends it releases them.
      let isAbandoned = self.state.withLock { state in
        guard !state.machine.nodes[node].isAbandoned else { return true }
        state.payloads[node].heldCategories = held
        return false
      }
      if isAbandoned {
        ExclusivityLocks.shared.release(held)
        return nil
      }
      if let info {
        for observer in observers {
          observer.willStart(info)
        }
        let now = clock.now()
        self.state.withLock { $0.payloads[node].startedAt = now }
        for observer in observers {
          observer.didStart(info)
        }
      }
      // NB: Checked after the observers, which may have cancelled the node: a node cancelled
      // before its work starts does not run it.
      let now = info == nil ? clock.now() : nil
      let start = self.state.withLock { state in
        state.beginWork(node, at: now, progress: self.progress)
      }
      switch start {
      case .run(let startedReporter):
        reporter = startedReporter
      case .cancelled:
        let held = self.state.withLock { state in
          defer { state.payloads[node].heldCategories = [] }
          return state.payloads[node].heldCategories
        }
        return self.endBeforeWork(node, observers: observers, info: info, held: held)
      case .abandoned:
        return nil
      }
    }
    var operationContext = self.context
    operationContext.progressReporter = reporter
    let context = NodeContext(
      node: GraphNodeID(graph: self.identity, index: node),
      name: name,
      graph: self,
      operationContext: operationContext
    )
    let result: Result<any Sendable, any Error>
    do {
      result = .success(try await body(context))
    } catch {
      result = .failure(error)
    }
    // NB: The node's unit is whole before its dependents can start. A node abandoned at its
    // deadline had its unit completed then; completing it again does nothing.
    reporter.complete()
    let end: GraphStateMachine.End
    switch result {
    case .success: end = .succeeded
    case .failure(let error as NodeSkipped): end = error.end
    case .failure(is CancellationError): end = .cancelled
    case .failure: end = .failed
    }
    let continuation: GraphStateMachine.Continuation
    if let info {
      let returned = self.state.withLock { state -> (NodeOutcome, [String])? in
        // NB: A node that ended at its deadline keeps that end; its late result is discarded.
        guard !state.machine.nodes[node].isAbandoned else { return nil }
        state.payloads[node].record(result)
        state.payloads[node].end = state.machine.workReturned(node, end: end)
        state.payloads[node].reporter = nil
        defer { state.payloads[node].heldCategories = [] }
        return (state.payloads[node].outcome, state.payloads[node].heldCategories)
      }
      guard let (outcome, held) = returned else { return nil }
      for observer in observers {
        observer.willFinish(info, outcome: outcome)
      }
      let now = clock.now()
      continuation = self.state.withLock { state in
        state.payloads[node].finishedAt = now
        let continuation = state.machine.finished(node, end: end, settles: false)
        state.record(continuation.actions, now: now)
        return continuation
      }
      ExclusivityLocks.shared.release(held)
      self.perform(continuation.actions)
      for observer in observers {
        observer.didFinish(info, outcome: outcome)
      }
      self.perform(self.state.withLock { $0.machine.settled(node) })
    } else {
      let now = clock.now()
      let returned = self.state.withLock { state -> (GraphStateMachine.Continuation, [String])? in
        guard !state.machine.nodes[node].isAbandoned else { return nil }
        state.payloads[node].record(result)
        state.payloads[node].finishedAt = now
        let continuation = state.machine.finished(node, end: end, settles: true)
        state.payloads[node].end = continuation.end
        state.payloads[node].reporter = nil
        state.record(continuation.actions, now: now)
        defer { state.payloads[node].heldCategories = [] }
        return (continuation, state.payloads[node].heldCategories)
      }
      guard let (finished, held) = returned else { return nil }
      continuation = finished
      ExclusivityLocks.shared.release(held)
      self.perform(continuation.actions)
    }
    return continuation.next
  }

  /// How a node's work starts, decided under the graph's lock.
  private enum DirectStart {
    /// The work runs, reporting its progress to this child of the graph's progress.
    case run(ProgressReporter)
    /// The node was cancelled before its work started: it ends cancelled without running it.
    case cancelled
    /// The node ended at its deadline before its work started.
    case abandoned
  }

  // MARK: - Deadlines

  /// Ends a running node at its deadline, with `error`, whatever its work does: a
  /// ``TimeoutObserver`` calls it when the node's time is up.
  ///
  /// The node fails with `error` (or, when it was cancelled before, ends cancelled with its
  /// cancellation errors and `error`): its will-finish and did-finish observers run now, its
  /// slot and its exclusivity locks are freed, and its dependents proceed as after any failure.
  /// Its task is cancelled; work that ignores that goes on in the background, holding nothing of
  /// the graph's, and what it returns is discarded.
  ///
  /// A node that is not running (it has not started, or its work has returned) is left alone:
  /// a deadline never ends a node twice, and never one that has finished.
  ///
  /// - Parameters:
  ///   - node: A node of this graph.
  ///   - error: The error the node ends with (an `OperationTimeoutError`, say).
  package func end(_ node: GraphNodeID, atDeadlineWith error: any Error) {
    guard node.graph == self.identity else { return }
    let index = node.index
    let abandoned = self.state.withLock { state -> Abandonment? in
      guard state.machine.nodes.indices.contains(index),
        let (end, actions) = state.machine.abandon(index)
      else { return nil }
      if end == .failed {
        state.payloads[index].errors = [error]
      } else {
        state.payloads[index].cancellationErrors.append(error)
      }
      state.payloads[index].end = end
      let observers = state.payloads[index].observers
      defer {
        state.payloads[index].heldCategories = []
        state.payloads[index].reporter = nil
      }
      return Abandonment(
        end: end,
        actions: actions,
        outcome: state.payloads[index].outcome,
        observers: observers,
        info: observers.isEmpty ? nil : self.info(index, in: state),
        held: state.payloads[index].heldCategories,
        reporter: state.payloads[index].reporter
      )
    }
    guard let abandoned else { return }
    self.perform(abandoned.actions)
    if let info = abandoned.info {
      for observer in abandoned.observers {
        observer.willFinish(info, outcome: abandoned.outcome)
      }
    }
    // NB: Read after the will-finish observers, as the contract of `GraphObserver` says.
    let now = self.context.operationClock.now()
    // NB: The node's unit is whole before its dependents can start. A node abandoned before its
    // work started has no child reporter yet, and its worker will not make one.
    if let reporter = abandoned.reporter {
      reporter.complete()
    } else {
      self.progress.advance(by: 1)
    }
    let continuation = self.state.withLock { state in
      state.payloads[index].finishedAt = now
      let continuation = state.machine.finished(
        index,
        end: abandoned.end,
        settles: abandoned.info == nil
      )
      state.record(continuation.actions, now: now)
      return continuation
    }
    ExclusivityLocks.shared.release(abandoned.held)
    self.perform(continuation.actions)
    if let info = abandoned.info {
      for observer in abandoned.observers {
        observer.didFinish(info, outcome: abandoned.outcome)
      }
      self.perform(self.state.withLock { $0.machine.settled(index) })
    }
  }

  /// What a deadline decided under the lock, to perform after it.
  private struct Abandonment {
    let end: GraphStateMachine.End
    let actions: [GraphStateMachine.Action]
    let outcome: NodeOutcome
    let observers: [any GraphObserver]
    let info: NodeInfo?
    let held: [String]
    let reporter: ProgressReporter?
  }
}

// MARK: - Exclusivity

extension WorkGraph {
  /// Takes the categories' locks in order.
  ///
  /// - Returns: The categories taken: all of them, or, when the task was cancelled while it
  ///   waited, none (those taken before are released).
  private static func acquire(_ categories: [String]) async -> [String] {
    var held = [String]()
    for category in categories {
      do {
        try await ExclusivityLocks.shared.acquire(category)
        held.append(category)
      } catch {
        ExclusivityLocks.shared.release(held)
        return []
      }
    }
    return held
  }

  /// Ends a node that a worker took but whose work never ran: it was cancelled while it waited
  /// for a mutual exclusion lock, or before its work started (from an observer's `willStart`,
  /// say). Its observers hear that it finished, after whatever start events they heard.
  ///
  /// - Parameter held: The exclusivity categories it holds, released as it ends.
  /// - Returns: The node the same worker runs next (none: its task is cancelled).
  private func endBeforeWork(
    _ node: Int,
    observers: [any GraphObserver],
    info: NodeInfo?,
    held: [String]
  ) -> Int? {
    let outcome = self.state.withLock { state -> NodeOutcome? in
      // NB: A node that ended at its deadline meanwhile has ended already.
      guard !state.machine.nodes[node].isAbandoned else { return nil }
      state.payloads[node].end = state.machine.workReturned(node, end: .cancelled)
      return state.payloads[node].outcome
    }
    guard let outcome else {
      ExclusivityLocks.shared.release(held)
      return nil
    }
    if let info {
      for observer in observers {
        observer.willFinish(info, outcome: outcome)
      }
    }
    // NB: Read after the will-finish observers, as the contract of `GraphObserver` says.
    let now = self.context.operationClock.now()
    self.progress.advance(by: 1)
    let continuation = self.state.withLock { state in
      state.payloads[node].finishedAt = now
      let continuation = state.machine.finished(node, end: .cancelled, settles: info == nil)
      state.record(continuation.actions, now: now)
      return continuation
    }
    ExclusivityLocks.shared.release(held)
    self.perform(continuation.actions)
    if let info {
      for observer in observers {
        observer.didFinish(info, outcome: outcome)
      }
      self.perform(self.state.withLock { $0.machine.settled(node) })
    }
    return continuation.next
  }
}

// MARK: - State

extension WorkGraph {
  package typealias NodeBody = @Sendable (NodeContext) async throws -> any Sendable

  /// The tasks a graph starts: one per worker, one per evaluation of conditions.
  private enum TaskKey: Hashable, Sendable {
    case worker(Int)
    case evaluation(Int)
  }

  /// Everything a graph keeps, behind its one lock.
  ///
  /// - `machine` decides; the rest is what its decisions need and what it does not know: the
  ///   nodes' work, results and times, and the tasks that run them.
  /// - A task's key is in `liveTasks` from the decision that starts it (recorded with the
  ///   decision, under the same lock) until its body has returned; its handle is in `tasks` once
  ///   stored, and a cancellation that comes before the handle is stored (even before the task
  ///   is created) waits in `pendingCancellations`.
  private struct State: Sendable {
    var machine: GraphStateMachine
    var payloads = [NodePayload]()
    var tasks = [TaskKey: Task<Void, Never>]()
    var liveTasks = Set<TaskKey>()
    var pendingCancellations = Set<TaskKey>()
    var runWaiters = [CheckedContinuation<Void, Never>]()
    var cancellationErrors = [any Error]()

    /// Marks a node's cancellation as told, when its observers are to be told now: it has
    /// observers, they have been attached, and they were not told before.
    ///
    /// - Returns: The node, as its observers see it, when they are to be told.
    mutating func takeCancelNotification(
      _ index: Int,
      info: (Int, State) -> NodeInfo
    ) -> NodeInfo? {
      guard !self.payloads[index].observers.isEmpty, !self.payloads[index].isAttaching,
        !self.payloads[index].isCancelNotified
      else { return nil }
      self.payloads[index].isCancelNotified = true
      return info(index, self)
    }

    /// Starts a node's work, unless the node was cancelled or ended at its deadline first.
    ///
    /// - Parameters:
    ///   - startedAt: The node's start time, unless its observers had it set already.
    ///   - progress: The graph's progress, of which the work gets a child for its unit.
    /// - Returns: Whether the work runs, with its child reporter.
    mutating func beginWork(
      _ node: Int,
      at startedAt: Date?,
      progress: ProgressReporter
    ) -> DirectStart {
      guard !self.machine.nodes[node].isAbandoned else { return .abandoned }
      guard !self.machine.nodes[node].isCancellationRequested else { return .cancelled }
      if let startedAt {
        self.payloads[node].startedAt = startedAt
      }
      // NB: Made under the lock, with the decision, so that a deadline that ends the node finds
      // the reporter to complete, or finds none and counts the unit itself. Making a child takes
      // only the progress's own lock and calls no handler.
      let reporter = progress.makeChild(pendingUnitCount: 1)
      self.payloads[node].reporter = reporter
      return .run(reporter)
    }

    /// Adds a node's payload; a node added to a cancelled graph takes the graph's errors.
    mutating func append(_ payload: NodePayload) {
      var payload = payload
      if self.machine.isCancelled {
        payload.cancellationErrors = self.cancellationErrors
      }
      self.payloads.append(payload)
    }

    /// Records, under the same lock as the decision, the end of every node that the state
    /// machine ended without running, so that no one reads such a node as unfinished, and the
    /// tasks it decided to start, so that a cancellation that comes before a task exists waits
    /// for it instead of being lost.
    mutating func record(_ actions: [GraphStateMachine.Action], now: Date) {
      for action in actions {
        switch action {
        case .endWithoutRunning(let node, let end):
          self.payloads[node].end = end
          // NB: A node with observers has its finish time set between their `willFinish` and
          // `didFinish`, as their contract says (see `endWithoutRunning(_:end:)`).
          if self.payloads[node].observers.isEmpty {
            self.payloads[node].finishedAt = now
          }
          // NB: A node that ended without running never will: its work can go.
          self.payloads[node].body = nil
        case .evaluate(let node):
          self.liveTasks.insert(.evaluation(node))
        case .startWorker(_, let worker):
          self.liveTasks.insert(.worker(worker))
        case .cancelEvaluation, .cancelWorker, .completeRun:
          break
        }
      }
    }

    func report(_ index: Int, graph: Int) -> NodeReport {
      let payload = self.payloads[index]
      let status: NodeStatus =
        switch self.machine.nodes[index].phase {
        case .waiting: .pending
        case .evaluating: .evaluatingConditions
        case .ready: .ready
        case .running, .finishing: .running
        case .finished: payload.end == nil ? .running : .finished(payload.outcome)
        }
      return NodeReport(
        id: GraphNodeID(graph: graph, index: index),
        name: payload.name,
        status: status,
        startedAt: payload.startedAt,
        finishedAt: payload.finishedAt
      )
    }
  }

  /// What a graph keeps of a node besides its scheduling state.
  private struct NodePayload: Sendable {
    let name: String?
    var body: NodeBody?
    var conditions = [any GraphCondition]()
    var categories = [String]()
    var observers = [any GraphObserver]()
    /// Whether the node's observers are being told that they were attached: a cancellation
    /// waits to be told until they have been.
    var isAttaching = false
    /// Whether the node's observers have been told of its cancellation.
    var isCancelNotified = false
    var onEndWithoutRunning: (@Sendable ([any Error]) -> Void)?
    var value: (any Sendable)?
    var errors = [any Error]()
    var conditionErrors = [any Error]()
    var cancellationErrors = [any Error]()
    var end: GraphStateMachine.End?
    var startedAt: Date?
    var finishedAt: Date?
    /// The exclusivity categories the node holds while it runs, released when it ends.
    var heldCategories = [String]()
    /// The child of the graph's progress that the node's running work reports to.
    var reporter: ProgressReporter?

    init(name: String?, body: @escaping NodeBody) {
      self.name = name
      self.body = body
    }

    mutating func record(_ result: Result<any Sendable, any Error>) {
      switch result {
      case .success(let value):
        self.value = value
      case .failure(let error as GraphAggregateError):
        self.errors = error.errors
      case .failure(let error as NodeSkipped):
        self.cancellationErrors += error.errors
      case .failure(is CancellationError):
        break
      case .failure(let error):
        self.errors = [error]
      }
    }

    var outcome: NodeOutcome {
      switch self.end {
      case .succeeded: .succeeded
      case .failed: .failed(self.errors)
      case .cancelled: .cancelled(self.cancellationErrors)
      case .notExecuted: .notExecuted(self.conditionErrors)
      case nil: preconditionFailure("A node's outcome was read before it ended.")
      }
    }

    func result(of node: GraphNodeID) -> Result<any Sendable, any Error>? {
      switch self.end {
      case nil:
        return nil
      case .succeeded:
        guard let value = self.value else {
          preconditionFailure("A node succeeded without a value.")
        }
        return .success(value)
      case .failed:
        return .failure(
          self.errors.count == 1 ? self.errors[0] : GraphAggregateError(errors: self.errors)
        )
      case .cancelled:
        return .failure(GraphNoResultError(node: node, reason: "it was cancelled"))
      case .notExecuted:
        return .failure(
          GraphNoResultError(node: node, reason: "its conditions kept it from running")
        )
      }
    }
  }
}

/// Thrown by a node's work to end the node without a result: cancelled with errors (a consumed
/// dependency failed, say).
package struct NodeSkipped: Error {
  package let end: GraphStateMachine.End
  package let errors: [any Error]

  package init(end: GraphStateMachine.End, errors: [any Error]) {
    self.end = end
    self.errors = errors
  }
}

private let nextGraphIdentity = Atomic<Int>(0)
