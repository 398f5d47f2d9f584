extension WorkGraph {
  /// Adds a node that runs a request.
  ///
  /// ```swift
  /// let user = try graph.add(UserRequest(id: 1).retry(limit: 3))
  /// let posts = try graph.add(PostsRequest(userID: 1), after: [user])
  /// ```
  ///
  /// The request runs with the graph's context (and the node's progress reporter), without an
  /// actor of its own, which is why it must be `Sendable`. To share a store's state, cache and
  /// deduplication, add the store instead: ``add(_:through:name:after:conditions:observers:)``.
  ///
  /// - Parameters:
  ///   - request: The request.
  ///   - name: The node's name; the request's type name by default.
  ///   - dependencies: The nodes it waits for.
  ///   - conditions: Its conditions, evaluated after its dependencies finish.
  ///   - observers: Its observers, besides the graph's.
  /// - Returns: The node.
  /// - Throws: ``GraphError`` when a dependency is not a node of this graph, or the graph has
  ///   finished.
  @discardableResult
  public func add<Request: OperationRequest & Sendable>(
    _ request: Request,
    name: String? = nil,
    after dependencies: [any GraphNodeReference] = [],
    conditions: [any GraphCondition] = [],
    observers: [any GraphObserver] = []
  ) throws(GraphError) -> GraphNode<Request.Value> where Request.Value: Sendable {
    try self.add(
      GraphWork(name: name, request),
      after: dependencies,
      conditions: conditions,
      observers: observers
    )
  }

  /// Adds a node that runs a closure.
  ///
  /// ```swift
  /// let sum = try graph.add(name: "Sum", after: [a, b]) { context in
  ///   try context.value(of: a) + context.value(of: b)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - name: The node's name.
  ///   - dependencies: The nodes it waits for.
  ///   - conditions: Its conditions, evaluated after its dependencies finish.
  ///   - observers: Its observers, besides the graph's.
  ///   - body: The work; it receives the node's context.
  /// - Returns: The node.
  /// - Throws: ``GraphError`` when a dependency is not a node of this graph, or the graph has
  ///   finished.
  @discardableResult
  public func add<Value: Sendable>(
    name: String? = nil,
    after dependencies: [any GraphNodeReference] = [],
    conditions: [any GraphCondition] = [],
    observers: [any GraphObserver] = [],
    _ body: @escaping @Sendable (NodeContext) async throws -> Value
  ) throws(GraphError) -> GraphNode<Value> {
    try self.add(
      GraphWork(name: name, body),
      after: dependencies,
      conditions: conditions,
      observers: observers
    )
  }

  /// Adds a node that runs a piece of work.
  ///
  /// - Parameters:
  ///   - work: The work.
  ///   - dependencies: The nodes it waits for.
  ///   - conditions: Its conditions, evaluated after its dependencies finish.
  ///   - observers: Its observers, besides the graph's.
  /// - Returns: The node.
  /// - Throws: ``GraphError`` when a dependency is not a node of this graph, or the graph has
  ///   finished.
  @discardableResult
  public func add<Value: Sendable>(
    _ work: GraphWork<Value>,
    after dependencies: [any GraphNodeReference] = [],
    conditions: [any GraphCondition] = [],
    observers: [any GraphObserver] = []
  ) throws(GraphError) -> GraphNode<Value> {
    try self.add(
      work,
      after: dependencies,
      conditions: conditions,
      observers: observers,
      producer: nil
    )
  }

  /// Adds a node that runs a query through a client's store, so that the graph shares the
  /// store's state, deduplication and cache with every screen that shows it.
  ///
  /// ```swift
  /// let client = OperationClient()
  /// let post = try graph.add(Post.query(for: 1), through: client)
  /// // A view that observes client.store(for: Post.query(for: 1)) sees the graph's fetch.
  /// ```
  ///
  /// The store is looked up (or created) when the node runs. A query that is not `Sendable`
  /// can run this way: the store isolates it.
  ///
  /// - Parameters:
  ///   - query: The query.
  ///   - client: The client whose store runs it.
  ///   - name: The node's name; the query's path by default.
  ///   - dependencies: The nodes it waits for.
  ///   - conditions: Its conditions, evaluated after its dependencies finish.
  ///   - observers: Its observers, besides the graph's.
  /// - Returns: The node.
  /// - Throws: ``GraphError`` when a dependency is not a node of this graph, or the graph has
  ///   finished.
  @discardableResult
  public func add<Query: QueryRequest & Sendable>(
    _ query: Query,
    through client: OperationClient,
    name: String? = nil,
    after dependencies: [any GraphNodeReference] = [],
    conditions: [any GraphCondition] = [],
    observers: [any GraphObserver] = []
  ) throws(GraphError) -> GraphNode<Query.Value>
  where Query.State == QueryState<Query.Value, Query.Failure> {
    try self.add(
      GraphWork(name: name ?? "\(query.path)") { _ in
        try await client.store(for: query).fetch()
      },
      after: dependencies,
      conditions: conditions,
      observers: observers
    )
  }

  /// Adds a node that consumes the value of another node: it runs with that value once the
  /// other node has succeeded, and is cancelled without running, with a
  /// ``GraphDependencyFailedError``, when the other node failed, was cancelled or did not run
  /// (danthorpe/Operations' automatic result injection).
  ///
  /// ```swift
  /// let words = try graph.add { _ in "Hello World" }
  /// let twice = try graph.add(consuming: words) { words, _ in "\(words) \(words)" }
  /// ```
  ///
  /// To see a failure as a value instead, and run anyway (PeakOperation's result passing), add
  /// a closure node after the producer and read ``NodeContext/result(of:)``.
  ///
  /// - Parameters:
  ///   - input: The node whose value it consumes; it becomes a dependency.
  ///   - name: The node's name.
  ///   - conditions: Its conditions, evaluated after the input finishes.
  ///   - observers: Its observers, besides the graph's.
  ///   - body: The work; it receives the input's value and the node's context.
  /// - Returns: The node.
  /// - Throws: ``GraphError`` when the input is not a node of this graph, or the graph has
  ///   finished.
  @discardableResult
  public func add<Input, Value: Sendable>(
    consuming input: GraphNode<Input>,
    name: String? = nil,
    conditions: [any GraphCondition] = [],
    observers: [any GraphObserver] = [],
    _ body: @escaping @Sendable (Input, NodeContext) async throws -> Value
  ) throws(GraphError) -> GraphNode<Value> {
    try self.add(name: name, after: [input], conditions: conditions, observers: observers) {
      context in
      switch context.result(of: input) {
      case .success(let value):
        return try await body(value, context)
      case .failure:
        let errors = context.graph.report(of: input).outcome?.errors ?? []
        throw NodeSkipped(
          end: .cancelled,
          errors: [GraphDependencyFailedError(dependency: input.id, errors: errors)]
        )
      }
    }
  }
}
