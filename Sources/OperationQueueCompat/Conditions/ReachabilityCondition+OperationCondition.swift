import OperationGraph

extension ReachabilityCondition: OperationCondition {
  /// Reads the observer's current status: `.connected` satisfies the condition; anything else
  /// fails it with `ReachabilityConditionError`.
  public func evaluate(
    for operation: ConcurrentOperation,
    completion: @escaping @Sendable (OperationConditionResult) -> Void
  ) {
    completion(self.verdict())
  }
}
