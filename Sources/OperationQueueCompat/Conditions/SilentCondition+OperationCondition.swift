public import Foundation
import OperationGraph

extension SilentCondition: OperationCondition where Inner: OperationCondition {
  /// Whether the inner condition is mutually exclusive.
  public var isMutuallyExclusive: Bool {
    self.inner.mutualExclusionCategory != nil
  }

  /// `nil`: the silent condition drops the inner condition's dependency.
  public func dependency(for operation: ConcurrentOperation) -> Foundation.Operation? {
    nil
  }

  /// Evaluates the inner condition.
  public func evaluate(
    for operation: ConcurrentOperation,
    completion: @escaping @Sendable (OperationConditionResult) -> Void
  ) {
    self.inner.evaluate(for: operation, completion: completion)
  }
}
