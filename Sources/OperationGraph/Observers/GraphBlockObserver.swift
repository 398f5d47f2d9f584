/// An observer made of closures, one per event; each is optional.
///
/// ```swift
/// let observer = GraphBlockObserver(
///   didStart: { node in print("\(node) started") },
///   didFinish: { node, outcome in print("\(node) \(outcome)") }
/// )
/// try graph.add(SyncRequest(), observers: [observer])
/// ```
public struct GraphBlockObserver: GraphObserver {
  private let closures: ObserverClosures<NodeInfo, NodeInfo, NodeOutcome>

  /// Whether it also observes the nodes that the nodes it observes produce.
  public let attachesToProducedNodes: Bool

  /// Creates an observer from closures.
  ///
  /// - Parameters:
  ///   - attachesToProducedNodes: Whether it also observes produced nodes.
  ///   - didAttach: Called when it is attached to a node.
  ///   - willStart: Called before the node's work starts.
  ///   - didStart: Called after the node's work started.
  ///   - didCancel: Called at the node's first cancellation, with the errors it was cancelled
  ///     with.
  ///   - didProduce: Called with the produced node, then the producer.
  ///   - willFinish: Called before the node finishes.
  ///   - didFinish: Called after the node finished.
  public init(
    attachesToProducedNodes: Bool = false,
    didAttach: (@Sendable (NodeInfo) -> Void)? = nil,
    willStart: (@Sendable (NodeInfo) -> Void)? = nil,
    didStart: (@Sendable (NodeInfo) -> Void)? = nil,
    didCancel: (@Sendable (NodeInfo, [any Error]) -> Void)? = nil,
    didProduce: (@Sendable (_ produced: NodeInfo, _ producer: NodeInfo) -> Void)? = nil,
    willFinish: (@Sendable (NodeInfo, NodeOutcome) -> Void)? = nil,
    didFinish: (@Sendable (NodeInfo, NodeOutcome) -> Void)? = nil
  ) {
    self.attachesToProducedNodes = attachesToProducedNodes
    self.closures = ObserverClosures(
      didAttach: didAttach,
      willStart: willStart,
      didStart: didStart,
      didCancel: didCancel,
      didProduce: didProduce,
      willFinish: willFinish,
      didFinish: didFinish
    )
  }

  public func didAttach(to node: NodeInfo) {
    self.closures.attached(to: node)
  }

  public func willStart(_ node: NodeInfo) {
    self.closures.willStart(node)
  }

  public func didStart(_ node: NodeInfo) {
    self.closures.didStart(node)
  }

  public func didCancel(_ node: NodeInfo, errors: [any Error]) {
    self.closures.cancelled(node, errors: errors)
  }

  public func didProduce(_ produced: NodeInfo, from node: NodeInfo) {
    self.closures.produced(produced, by: node)
  }

  public func willFinish(_ node: NodeInfo, outcome: NodeOutcome) {
    self.closures.willFinish(node, outcome: outcome)
  }

  public func didFinish(_ node: NodeInfo, outcome: NodeOutcome) {
    self.closures.didFinish(node, outcome: outcome)
  }
}
