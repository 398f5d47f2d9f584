/// Why a graph refused to add a node or a dependency.
///
/// ```swift
/// let a = try graph.add { _ in 1 }
/// let b = try graph.add(after: [a]) { _ in 2 }
/// do {
///   try graph.addDependency(a, on: b)
/// } catch {
///   print(error.code)  // cycle
///   print(error)       // Adding this dependency would make a cycle: #0 → #1 → #0 …
/// }
/// ```
public struct GraphError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What went wrong.
  public enum Code: Hashable, Sendable {
    /// The graph has finished running, so nothing can be added to it.
    case graphFinished
    /// The node belongs to another graph, or to none.
    case unknownNode
    /// The node has started (or ended), so it cannot gain dependencies.
    case nodeStarted
    /// The dependency would close a cycle.
    case cycle
  }

  /// What went wrong.
  public let code: Code

  /// The nodes involved; for a cycle, the cycle in order, each node depending on the next and
  /// the last being the first again.
  public let nodes: [GraphNodeID]

  /// A sentence that says what happened and what to do.
  public let message: String

  package init(code: Code, nodes: [GraphNodeID], message: String) {
    self.code = code
    self.nodes = nodes
    self.message = message
  }

  public var description: String {
    self.message
  }
}
