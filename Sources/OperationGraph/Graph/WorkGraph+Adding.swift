@_spi(Warnings) import OperationCore
import OperationSynchronization

extension WorkGraph {
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
}

// MARK: - Kinds of work

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
