/// A node whose work is a graph of its own: it finishes when every child has finished,
/// including children added while it runs, and fails with the errors of all of them.
///
/// ```swift
/// let sync = try graph.addGroup(name: "Sync") { group in
///   let contacts = try group.add(SyncContacts())
///   try group.add(SyncPhotos(), after: [contacts])
/// }
/// // Later, while it runs:
/// try sync.graph.add(SyncNotes())
/// ```
///
/// The contract:
/// - The group starts its children when it starts (after its own dependencies and conditions),
///   and finishes after the last of them.
/// - It fails when any child ends with errors, with a ``GraphAggregateError`` of all the
///   children's errors in child order; a nested group contributes its own children's errors, so
///   a failing grandchild counts once.
/// - Cancelling the group cancels the children that have not finished; those that finished keep
///   their outcome. Cancelling it with errors cancels them with a
///   ``GraphParentCancelledError`` that carries the errors. A group cancelled before it started
///   cancels all its children.
/// - The group's progress in its parent graph follows the fraction of its children that ended.
/// - A child's work adds nodes to the group through its context
///   (``NodeContext/produce(_:after:conditions:observers:)``), and the group waits for them.
public struct GraphGroup: GraphNodeReference {
  /// The group's node in its parent graph.
  public let node: GraphNode<Void>

  /// The group's own graph: add children to it, before or while the group runs.
  public let graph: WorkGraph

  /// The group's node's identifier.
  public var id: GraphNodeID {
    self.node.id
  }
}

extension WorkGraph {
  /// Adds a group: a node whose work is a graph of its own.
  ///
  /// - Parameters:
  ///   - name: The group's name.
  ///   - dependencies: The nodes the group waits for.
  ///   - conditions: The group's conditions, evaluated after its dependencies finish.
  ///   - observers: The group's observers, besides the graph's.
  ///   - maxConcurrentNodes: The most children that run at once; the parent's limit by default.
  ///   - build: Adds the first children to the group's graph.
  /// - Returns: The group.
  /// - Throws: ``GraphError`` when the group or a child cannot be added, or what `build` threw.
  @discardableResult
  public func addGroup(
    name: String? = nil,
    after dependencies: [any GraphNodeReference] = [],
    conditions: [any GraphCondition] = [],
    observers: [any GraphObserver] = [],
    maxConcurrentNodes: Int? = nil,
    _ build: (WorkGraph) throws -> Void = { _ in }
  ) throws -> GraphGroup {
    let children = WorkGraph(
      name: name,
      maxConcurrentNodes: maxConcurrentNodes ?? self.maxConcurrentNodes,
      context: self.context
    )
    try build(children)
    let work = GraphWork<Void>(name: name) { context in
      let parent = context.graph
      let node = context.node
      let reporter = context.operationContext.progressReporter
      let forwarding = children.progress.onChange { progress in
        reporter?.report(fractionCompleted: progress.fractionCompleted)
      }
      defer { forwarding.cancel() }
      let report = await children.run {
        let errors = parent.cancellationErrors(of: node)
        return errors.isEmpty ? [] : [GraphParentCancelledError(errors: errors)]
      }
      let errors = report.errors
      if !errors.isEmpty {
        throw GraphAggregateError(errors: errors)
      }
    }
    let node = try self.add(
      work,
      after: dependencies,
      conditions: conditions,
      observers: observers,
      producer: nil,
      onEndWithoutRunning: { errors in
        children.cancelAll(with: errors.isEmpty ? [] : [GraphParentCancelledError(errors: errors)])
        children.start()
      }
    )
    return GraphGroup(node: node, graph: children)
  }
}
