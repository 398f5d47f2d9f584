@_spi(Warnings) import OperationCore
import OperationSynchronization
import Synchronization

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
///   for that work, whose late result is discarded. Its mutual exclusion locks do: they are
///   released when the work returns, so another node of the category never runs beside it.
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
  /// ``ProgressReporter/updates`` or ``ProgressReporter/onChange(_:)`` (or, with
  /// `OperationQueueCompat` imported, as a Foundation `Progress` with `foundationProgress()`).
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
  let observers: [any GraphObserver]
  /// The graph's one lock: its state machine and what its decisions need (see `State`).
  let state: Lock<State>

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
    self.state = Lock(
      State(
        machine: GraphStateMachine(concurrencyLimit: limit),
        clock: context.operationClock
      )
    )
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

  // MARK: - Internals

  var displayName: String {
    self.name.map { "graph '\($0)'" } ?? "the graph"
  }

  /// A node as its observers and conditions see it.
  func info(_ index: Int, in state: State) -> NodeInfo {
    NodeInfo(
      id: GraphNodeID(graph: self.identity, index: index),
      name: state.payloads[index].name,
      graph: self,
      operationContext: self.context
    )
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
