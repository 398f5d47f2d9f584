import Foundation

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
    if outcomes.contains(where: \.isCancelled) {
      return self.ignoresCancellations
        ? .cancelled : .failed(NoFailedDependenciesError.cancelledDependencies)
    }
    if outcomes.contains(where: { $0.isFailed || $0.isNotExecuted }) {
      return .failed(NoFailedDependenciesError.failedDependencies)
    }
    return .satisfied
  }
}

extension NoFailedDependenciesCondition: OperationCondition {
  /// Checks the operation's dependencies: a cancelled one first, then one that failed (a
  /// ``ConcurrentOperation`` with errors, such as a group with a failed child).
  public func evaluate(
    for operation: ConcurrentOperation,
    completion: @escaping @Sendable (OperationConditionResult) -> Void
  ) {
    let dependencies = operation.dependencies
    if dependencies.contains(where: \.isCancelled) {
      completion(
        self.ignoresCancellations
          ? .cancelled : .failed(NoFailedDependenciesError.cancelledDependencies)
      )
    } else if dependencies.contains(where: { ($0 as? ConcurrentOperation)?.failed == true }) {
      completion(.failed(NoFailedDependenciesError.failedDependencies))
    } else {
      completion(.satisfied)
    }
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
