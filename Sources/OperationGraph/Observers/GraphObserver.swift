/// Hears the events of the nodes it is attached to.
///
/// Attach an observer to one node (`observers:` of ``WorkGraph/add(name:after:conditions:observers:_:)``
/// and its siblings) or to every node of a graph (``WorkGraph/init(name:maxConcurrentNodes:context:observers:)``).
/// Every requirement has an empty default, so an observer implements only what it needs.
///
/// The contract:
/// - A node's events come in this order: `didAttach`, `willStart`, `didStart`, `willFinish`,
///   `didFinish`; `didCancel` comes once, at the first cancellation, whenever that is;
///   `didProduce` comes each time the node's work adds a node through its ``NodeContext``.
/// - A node that never runs (cancelled before it started, or stopped by a condition) has
///   `willFinish` and `didFinish` without `willStart` and `didStart`. A node cancelled by an
///   observer's `willStart` or `didStart` has both start events, then ends cancelled without
///   running its work.
/// - The node's start time is set between `willStart` and `didStart`, its finish time between
///   `willFinish` and `didFinish` (``NodeReport/startedAt``, ``NodeReport/finishedAt``), on
///   every path: a node that never runs has no finish time until its `willFinish` observers
///   have returned.
/// - A node that ends at a deadline (``TimeoutObserver``) hears `willFinish` and `didFinish` at
///   the deadline, while its work may still run; nothing more comes when that work returns.
/// - A node that took one of the graph's `maxConcurrentNodes` slots (its work started, it was
///   cancelled from a start event, or it ended at a deadline) releases its dependents and its
///   slot only after its `didFinish` observers have returned, so with one slot no node starts
///   while another's observers run.
/// - A graph's run returns only after every node's `didFinish` has returned.
/// - Events are delivered synchronously on the task that caused them, with no lock of the
///   graph's held, so an observer may call back into the graph. Keep them short: a node's work
///   waits for its observers.
public protocol GraphObserver: Sendable {
  /// Whether the observer also attaches itself to the nodes that a node it observes produces.
  var attachesToProducedNodes: Bool { get }

  /// The observer was attached to a node (before the node can start).
  func didAttach(to node: NodeInfo)

  /// The node's work is about to start.
  func willStart(_ node: NodeInfo)

  /// The node's work has started.
  func didStart(_ node: NodeInfo)

  /// The node was cancelled (once, however often it is cancelled).
  func didCancel(_ node: NodeInfo, errors: [any Error])

  /// The node's work added a node to the graph.
  func didProduce(_ produced: NodeInfo, from node: NodeInfo)

  /// The node is about to finish with this outcome.
  func willFinish(_ node: NodeInfo, outcome: NodeOutcome)

  /// The node has finished with this outcome.
  func didFinish(_ node: NodeInfo, outcome: NodeOutcome)
}

extension GraphObserver {
  public var attachesToProducedNodes: Bool { false }
  public func didAttach(to node: NodeInfo) {}
  public func willStart(_ node: NodeInfo) {}
  public func didStart(_ node: NodeInfo) {}
  public func didCancel(_ node: NodeInfo, errors: [any Error]) {}
  public func didProduce(_ produced: NodeInfo, from node: NodeInfo) {}
  public func willFinish(_ node: NodeInfo, outcome: NodeOutcome) {}
  public func didFinish(_ node: NodeInfo, outcome: NodeOutcome) {}
}

/// A node as its observers and conditions see it.
public struct NodeInfo: Sendable, CustomStringConvertible {
  /// The node's identifier.
  public let id: GraphNodeID

  /// The node's name, if it was given one.
  public let name: String?

  /// The graph the node belongs to: cancel the node through it, or read its report.
  public let graph: WorkGraph

  /// The context the node's work runs with.
  public let operationContext: OperationContext

  package init(id: GraphNodeID, name: String?, graph: WorkGraph, operationContext: OperationContext)
  {
    self.id = id
    self.name = name
    self.graph = graph
    self.operationContext = operationContext
  }

  /// The node's report, as it is now.
  public var report: NodeReport {
    self.graph.report(of: self.id)
  }

  /// The node's name, or its identifier when it has none.
  public var displayName: String {
    self.name ?? "Node \(self.id)"
  }

  public var description: String {
    self.displayName
  }
}
