/// Decides, after a node's dependencies have finished and before it runs, whether it runs.
///
/// All of a node's conditions are evaluated concurrently, and every failure is collected: a node
/// with a failed condition ends ``NodeOutcome/notExecuted(_:)`` with the failures, without
/// running. A condition can also:
/// - make its node mutually exclusive with every other node of the same category, in every graph
///   of the process (``NamedCondition/mutualExclusionCategory``);
/// - bring a piece of work that must run before it is evaluated (``dependency``), after the
///   node's ordinary dependencies: a permission prompt before the check that permission was
///   given, say.
///
/// ```swift
/// struct SignedIn: GraphCondition {
///   let session: Session
///   var name: String { "Signed In" }
///   func evaluate(in context: ConditionContext) async -> ConditionResult {
///     await session.isSignedIn ? .satisfied : .failed(NotSignedIn())
///   }
/// }
///
/// try graph.add(syncRequest, conditions: [SignedIn(session: session)])
/// ```
public protocol GraphCondition: NamedCondition {
  /// Work that runs before the condition is evaluated, as a node of the same graph that the
  /// conditioned node depends on; `nil` (the default) for none.
  var dependency: GraphWork<Void>? { get }

  /// Evaluates the condition for a node.
  ///
  /// - Parameter context: The node and the outcomes of its dependencies.
  /// - Returns: Whether the node may run.
  func evaluate(in context: ConditionContext) async -> ConditionResult
}

extension GraphCondition {
  public var dependency: GraphWork<Void>? { nil }
}

/// The verdict of a ``GraphCondition``.
public enum ConditionResult: Sendable {
  /// The node may run.
  case satisfied

  /// The node must not run; the error says why.
  case failed(any Error)

  /// The node is cancelled quietly, without an error (for example by
  /// ``NoFailedDependenciesCondition`` that ignores cancellations).
  case cancelled
}

/// What a condition knows when it is evaluated.
public struct ConditionContext: Sendable {
  /// The node the condition is evaluated for.
  public let node: NodeInfo

  /// The reports of the node's dependencies, all of them finished, in the order they were added
  /// (a condition's own ``GraphCondition/dependency`` among them).
  public let dependencies: [NodeReport]

  package init(node: NodeInfo, dependencies: [NodeReport]) {
    self.node = node
    self.dependencies = dependencies
  }
}
