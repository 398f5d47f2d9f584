/// A condition that lets a node run only when none of its dependencies was cancelled or failed.
///
/// Cancelled dependencies are checked first: any of them fails the condition with
/// ``NoFailedDependenciesError/cancelledDependencies``, or, when it ignores cancellations,
/// cancels the node quietly. Then any dependency that failed or did not run fails it with
/// ``NoFailedDependenciesError/failedDependencies``. A group dependency fails when one of its
/// children failed.
///
/// ```swift
/// let download = try graph.add(Download())
/// try graph.add(Unzip(), after: [download], conditions: [NoFailedDependenciesCondition()])
/// ```
public struct NoFailedDependenciesCondition: GraphCondition {
  /// Whether a cancelled dependency cancels the node without an error instead of failing it.
  public let ignoresCancellations: Bool

  /// Creates the condition.
  ///
  /// - Parameter ignoringCancellations: Whether a cancelled dependency cancels the node quietly
  ///   instead of failing the condition.
  public init(ignoringCancellations: Bool = false) {
    self.ignoresCancellations = ignoringCancellations
  }

  /// "No Failed Dependencies".
  public var name: String {
    "No Failed Dependencies"
  }

  public func evaluate(in context: ConditionContext) async -> ConditionResult {
    let outcomes = context.dependencies.compactMap(\.outcome)
    return self.verdict(
      hasCancelledDependency: outcomes.contains(where: \.isCancelled),
      hasFailedDependency: outcomes.contains(where: { $0.isFailed || $0.isNotExecuted })
    )
  }

  /// The verdict from what the dependencies did, for whatever the condition guards: a
  /// cancelled dependency counts first.
  package func verdict(
    hasCancelledDependency: Bool,
    hasFailedDependency: @autoclosure () -> Bool
  ) -> ConditionResult {
    if hasCancelledDependency {
      return self.ignoresCancellations
        ? .cancelled : .failed(NoFailedDependenciesError.cancelledDependencies)
    }
    if hasFailedDependency() {
      return .failed(NoFailedDependenciesError.failedDependencies)
    }
    return .satisfied
  }
}

/// Why a ``NoFailedDependenciesCondition`` failed.
public enum NoFailedDependenciesError: Error, Hashable, Sendable, CustomStringConvertible {
  /// A dependency was cancelled.
  case cancelledDependencies
  /// A dependency failed, or did not run.
  case failedDependencies

  public var description: String {
    switch self {
    case .cancelledDependencies: "A dependency of the node was cancelled."
    case .failedDependencies: "A dependency of the node failed or did not run."
    }
  }
}
