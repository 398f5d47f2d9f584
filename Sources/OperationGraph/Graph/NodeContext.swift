/// What a node's work receives: the results of its dependencies, the graph to add nodes to, and
/// the context to run requests with.
///
/// ```swift
/// let token = try graph.add(SignIn())
/// let profile = try graph.add(after: [token]) { context in
///   try await api.profile(token: try context.value(of: token))
/// }
/// ```
public struct NodeContext: Sendable {
  /// The node whose work runs.
  public let node: GraphNodeID

  /// The node's name, if it was given one.
  public let name: String?

  /// The graph the node belongs to (a group's own graph for a node of a group).
  public let graph: WorkGraph

  /// The context to run requests with: the graph's context, with the node's progress reporter.
  public var operationContext: OperationContext

  package init(
    node: GraphNodeID,
    name: String?,
    graph: WorkGraph,
    operationContext: OperationContext
  ) {
    self.node = node
    self.name = name
    self.graph = graph
    self.operationContext = operationContext
  }

  /// The result of a node: its value, or why it has none.
  ///
  /// A failed node's result is a failure with its error (a ``GraphAggregateError`` when it has
  /// several); a node that was cancelled, did not run or has not finished has a
  /// ``GraphNoResultError`` (PeakOperation's "no result").
  ///
  /// - Parameter node: A node of the same graph, usually a dependency.
  /// - Returns: The node's result.
  public func result<Value>(of node: GraphNode<Value>) -> Result<Value, any Error> {
    self.graph.result(of: node)
      ?? .failure(GraphNoResultError(node: node.id, reason: "it has not finished"))
  }

  /// The value of a node.
  ///
  /// - Parameter node: A node of the same graph, usually a dependency.
  /// - Returns: The node's value.
  /// - Throws: The node's error, or ``GraphNoResultError`` when it has no value.
  public func value<Value>(of node: GraphNode<Value>) throws -> Value {
    try self.result(of: node).get()
  }

  /// Adds a node to the graph, as work that this node produced.
  ///
  /// The node's observers hear of it (``GraphObserver/didProduce(_:from:)``), and those that
  /// attach to produced nodes observe the new one too. In a group, the new node is a child of
  /// the group, and the group finishes only after it.
  ///
  /// - Parameters:
  ///   - work: The work of the new node.
  ///   - dependencies: The nodes it waits for.
  ///   - conditions: Its conditions.
  ///   - observers: Its own observers.
  /// - Returns: The new node.
  /// - Throws: ``GraphError`` when the graph refuses the node.
  @discardableResult
  public func produce<Value: Sendable>(
    _ work: GraphWork<Value>,
    after dependencies: [any GraphNodeReference] = [],
    conditions: [any GraphCondition] = [],
    observers: [any GraphObserver] = []
  ) throws(GraphError) -> GraphNode<Value> {
    try self.graph.add(
      work,
      after: dependencies,
      conditions: conditions,
      observers: observers,
      producer: self.node
    )
  }
}

// MARK: - GraphWork

/// A piece of work that a graph can run as a node: a closure, or a request.
///
/// ```swift
/// let work = GraphWork(name: "Load") { context in try await loader.load() }
/// let node = try graph.add(work)
/// ```
public struct GraphWork<Value: Sendable>: Sendable {
  /// The name of the node that runs it.
  public var name: String?

  package let body: @Sendable (NodeContext) async throws -> Value

  /// Work from a closure.
  ///
  /// - Parameters:
  ///   - name: The name of the node that runs it.
  ///   - body: The work; it receives the node's context.
  public init(name: String? = nil, _ body: @escaping @Sendable (NodeContext) async throws -> Value)
  {
    self.name = name
    self.body = body
  }

  /// Work that runs a request with the node's context.
  ///
  /// The request runs without an actor of its own, which is why it must be `Sendable`. To run
  /// a request that is not, run it through a store: ``init(name:store:)``.
  ///
  /// - Parameters:
  ///   - name: The name of the node; the request's type name by default.
  ///   - request: The request.
  public init<Request: OperationRequest & Sendable>(name: String? = nil, _ request: Request)
  where Request.Value == Value {
    self.name = name ?? request._debugTypeName
    self.body = { context in
      try await request.run(
        isolation: nil,
        in: context.operationContext,
        with: OperationContinuation { _, _ in }
      )
    }
  }

  /// Work that runs a store's operation, so that its state, deduplication and cache are shared
  /// with every other user of the store (a screen that shows it, say).
  ///
  /// - Parameters:
  ///   - name: The name of the node; the store's path by default.
  ///   - store: The store.
  public init<State: OperationState>(name: String? = nil, store: OperationStore<State>)
  where State.OperationValue == Value {
    self.name = name ?? "\(store.path)"
    self.body = { _ in try await store.run() }
  }
}

extension GraphWork {
  /// The same work, with its value thrown away: for a condition's dependency, say.
  public func discardingValue() -> GraphWork<Void> {
    let body = self.body
    return GraphWork<Void>(name: self.name) { context in _ = try await body(context) }
  }
}
