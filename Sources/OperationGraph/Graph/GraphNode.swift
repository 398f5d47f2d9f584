#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  // NB: Only `Date` and `TimeInterval` appear in this module's API; Apple platforms declare them
  // in Foundation, which is otherwise not part of it.
  public import struct Foundation.Date
  public import typealias Foundation.TimeInterval
#endif

// MARK: - GraphNodeID

/// Identifies a node of a ``WorkGraph``.
///
/// Identifiers are ordered by the order in which nodes were added to their graph. An identifier
/// belongs to one graph: another graph refuses it with ``GraphError/Code/unknownNode``.
public struct GraphNodeID: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The graph the node belongs to.
  package let graph: Int

  /// The node's position in its graph, from 0 in the order nodes were added.
  public let index: Int

  package init(graph: Int, index: Int) {
    self.graph = graph
    self.index = index
  }

  public static func < (lhs: Self, rhs: Self) -> Bool {
    (lhs.graph, lhs.index) < (rhs.graph, rhs.index)
  }

  public var description: String {
    "#\(self.index)"
  }
}

// MARK: - GraphNodeReference

/// Anything that names a node of a graph: a ``GraphNode``, a ``GraphGroup`` or a ``GraphNodeID``.
///
/// Methods that take dependencies accept a mixed array of them:
///
/// ```swift
/// let user = try graph.add(fetchUser)
/// let settings = try graph.add(fetchSettings)
/// let screen = try graph.add(after: [user, settings]) { context in
///   Screen(user: try context.value(of: user), settings: try context.value(of: settings))
/// }
/// ```
public protocol GraphNodeReference: Sendable {
  /// The node's identifier.
  var id: GraphNodeID { get }
}

extension GraphNodeID: GraphNodeReference {
  public var id: GraphNodeID { self }
}

// MARK: - GraphNode

/// A node of a ``WorkGraph`` whose work produces a `Value`.
///
/// A node is a handle: it holds no state. Ask the graph for the node's result
/// (``WorkGraph/result(of:)``) or report (``WorkGraph/report(of:)``), and ask a dependent node's
/// ``NodeContext`` for the value (``NodeContext/value(of:)``).
public struct GraphNode<Value: Sendable>: GraphNodeReference, Hashable {
  /// The node's identifier.
  public let id: GraphNodeID

  /// The node's name, if it was given one.
  public let name: String?

  package init(id: GraphNodeID, name: String?) {
    self.id = id
    self.name = name
  }
}

// MARK: - NodeOutcome

/// How a node ended.
///
/// Errors are kept in the order they happened. A node whose work failed with an
/// ``GraphAggregateError`` (a group) carries the aggregate's errors, not the aggregate, so that a
/// nested group's errors are counted once.
public enum NodeOutcome: Sendable, CustomStringConvertible {
  /// Its work returned a value.
  case succeeded

  /// Its work threw.
  case failed([any Error])

  /// It was cancelled, before or while it ran; the errors are those it was cancelled with (a
  /// timeout, a parent group's errors), often none.
  case cancelled([any Error])

  /// A condition failed, so its work never ran; the errors are the conditions' failures.
  case notExecuted([any Error])

  /// The errors the node ended with.
  public var errors: [any Error] {
    switch self {
    case .succeeded: []
    case .failed(let errors), .cancelled(let errors), .notExecuted(let errors): errors
    }
  }

  /// Whether the node's work returned a value.
  public var isSucceeded: Bool {
    if case .succeeded = self { true } else { false }
  }

  /// Whether the node was cancelled.
  public var isCancelled: Bool {
    if case .cancelled = self { true } else { false }
  }

  /// Whether the node's work threw.
  public var isFailed: Bool {
    if case .failed = self { true } else { false }
  }

  /// Whether a condition kept the node from running.
  public var isNotExecuted: Bool {
    if case .notExecuted = self { true } else { false }
  }

  public var description: String {
    switch self {
    case .succeeded: "succeeded"
    case .failed(let errors): "failed with \(errors)"
    case .cancelled(let errors): errors.isEmpty ? "cancelled" : "cancelled with \(errors)"
    case .notExecuted(let errors): "not executed because of \(errors)"
    }
  }
}

// MARK: - NodeStatus

/// Where a node is in its life.
public enum NodeStatus: Sendable, CustomStringConvertible {
  /// Waiting for its dependencies, or for its graph to run.
  case pending

  /// Its conditions are being evaluated, or it waits for a mutual exclusion lock.
  case evaluatingConditions

  /// Waiting for a free slot under the graph's concurrency limit (or for the graph to resume).
  case ready

  /// Its work is running.
  case running

  /// It has ended.
  case finished(NodeOutcome)

  /// The outcome, once the node has ended.
  public var outcome: NodeOutcome? {
    if case .finished(let outcome) = self { outcome } else { nil }
  }

  public var description: String {
    switch self {
    case .pending: "pending"
    case .evaluatingConditions: "evaluating conditions"
    case .ready: "ready"
    case .running: "running"
    case .finished(let outcome): "finished: \(outcome)"
    }
  }
}

// MARK: - NodeReport

/// What a graph knows of one node: its status and when it ran.
///
/// Times come from the node's context's `operationClock`, so tests can fix them.
public struct NodeReport: Sendable, CustomStringConvertible {
  /// The node's identifier.
  public let id: GraphNodeID

  /// The node's name, if it was given one.
  public let name: String?

  /// Where the node is in its life.
  public let status: NodeStatus

  /// When its work started (after the will-start observers, before the did-start ones).
  public let startedAt: Date?

  /// When it finished (after the will-finish observers, before the did-finish ones).
  public let finishedAt: Date?

  /// The clock the times come from: the graph's context's `operationClock`.
  let clock: any OperationClock & Sendable

  /// The node's outcome, once it has ended.
  public var outcome: NodeOutcome? {
    self.status.outcome
  }

  /// How long the node ran: 0 before it started, up to now while it runs.
  ///
  /// ```swift
  /// let report = graph.report(of: upload)
  /// print("Upload ran for \(report.executionTime()) s")
  /// ```
  ///
  /// - Parameter now: The current time, for a node that is still running; by default, what the
  ///   clock of the graph's context reads now (the clock its start and finish times come from).
  /// - Returns: The seconds from its start to its finish, or to `now` while it runs.
  public func executionTime(now: Date? = nil) -> TimeInterval {
    guard let startedAt = self.startedAt else { return 0 }
    return (self.finishedAt ?? now ?? self.clock.now()).timeIntervalSince(startedAt)
  }

  public var description: String {
    "\(self.name.map { "'\($0)'" } ?? "node") \(self.id): \(self.status)"
  }
}

// MARK: - GraphReport

/// The outcome of a whole graph, once it has run.
public struct GraphReport: Sendable {
  /// Every node, in the order they were added.
  public let nodes: [NodeReport]

  /// The errors of every node, in node order: the errors a group aggregates.
  public var errors: [any Error] {
    self.nodes.flatMap { $0.outcome?.errors ?? [] }
  }

  /// The number of nodes whose work returned a value.
  public var succeededCount: Int {
    self.nodes.count { $0.outcome?.isSucceeded == true }
  }

  /// The number of nodes whose work threw.
  public var failedCount: Int {
    self.nodes.count { $0.outcome?.isFailed == true }
  }

  /// The number of nodes that were cancelled.
  public var cancelledCount: Int {
    self.nodes.count { $0.outcome?.isCancelled == true }
  }

  /// The number of nodes whose conditions kept them from running.
  public var notExecutedCount: Int {
    self.nodes.count { $0.outcome?.isNotExecuted == true }
  }

  /// The report of one node.
  public subscript(node: some GraphNodeReference) -> NodeReport {
    self.nodes[node.id.index]
  }
}

// MARK: - Errors of nodes

/// The errors of several nodes as one error: a group's children, a set of retries.
///
/// A node whose work throws an aggregate ends with the aggregate's errors, not with the
/// aggregate itself, so a failing grandchild counts once in a group of groups.
public struct GraphAggregateError: Error, Sendable, CustomStringConvertible {
  /// The errors, in the order of the nodes that ended with them.
  public let errors: [any Error]

  /// Creates an aggregate of errors.
  public init(errors: [any Error]) {
    self.errors = errors
  }

  public var description: String {
    "\(self.errors.count) error(s): \(self.errors)"
  }
}

/// A node was cancelled because the group it belongs to was cancelled with errors.
public struct GraphParentCancelledError: Error, Sendable, CustomStringConvertible {
  /// The errors the parent was cancelled with.
  public let errors: [any Error]

  /// Creates the error.
  public init(errors: [any Error]) {
    self.errors = errors
  }

  public var description: String {
    "The node's group was cancelled with \(self.errors.count) error(s): \(self.errors)"
  }
}

/// A node asked for the value of another node that has none.
public struct GraphNoResultError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The node without a value.
  public let node: GraphNodeID

  /// Why it has none: it has not finished, was cancelled, or did not run.
  public let reason: String

  /// Creates the error.
  public init(node: GraphNodeID, reason: String) {
    self.node = node
    self.reason = reason
  }

  public var description: String {
    "Node \(self.node) has no result: \(self.reason)"
  }
}

/// A node consumed the result of a dependency that failed, so it was cancelled without running
/// (danthorpe/Operations' automatic result injection).
public struct GraphDependencyFailedError: Error, Sendable, CustomStringConvertible {
  /// The dependency.
  public let dependency: GraphNodeID

  /// The dependency's errors.
  public let errors: [any Error]

  /// Creates the error.
  public init(dependency: GraphNodeID, errors: [any Error]) {
    self.dependency = dependency
    self.errors = errors
  }

  public var description: String {
    "Dependency \(self.dependency) finished with \(self.errors.count) error(s): \(self.errors)"
  }
}
