import Foundation
import OperationGraph

extension NoFailedDependenciesCondition: OperationCondition {
  /// Checks the operation's dependencies: a cancelled one first, then one that failed (a
  /// ``ConcurrentOperation`` with errors, such as a group with a failed child).
  public func evaluate(
    for operation: ConcurrentOperation,
    completion: @escaping @Sendable (OperationConditionResult) -> Void
  ) {
    let dependencies = operation.dependencies
    completion(
      self.verdict(
        hasCancelledDependency: dependencies.contains(where: \.isCancelled),
        hasFailedDependency: dependencies.contains { ($0 as? ConcurrentOperation)?.failed == true }
      )
    )
  }
}
