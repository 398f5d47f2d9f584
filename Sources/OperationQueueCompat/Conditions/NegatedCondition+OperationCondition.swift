public import Foundation
import OperationGraph

extension NegatedCondition: OperationCondition where Inner: OperationCondition {
  /// Whether the inner condition is mutually exclusive.
  public var isMutuallyExclusive: Bool {
    self.inner.mutualExclusionCategory != nil
  }

  /// The inner condition's dependency.
  public func dependency(for operation: ConcurrentOperation) -> Foundation.Operation? {
    self.inner.dependency(for: operation)
  }

  /// Evaluates the inner condition and negates its verdict: satisfied fails with
  /// `NegatedConditionSatisfied`, failed is satisfied, and a cancellation stays one.
  public func evaluate(
    for operation: ConcurrentOperation,
    completion: @escaping @Sendable (OperationConditionResult) -> Void
  ) {
    self.inner.evaluate(for: operation) { result in
      completion(self.negate(result))
    }
  }
}
