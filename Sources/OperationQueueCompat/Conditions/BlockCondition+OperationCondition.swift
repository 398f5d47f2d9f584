import OperationGraph

extension BlockCondition: OperationCondition {
  /// Runs the closure in a task: `true` lets the operation execute, `false` fails it with
  /// `BlockConditionFailed`, and a thrown error fails it with that error.
  public func evaluate(
    for operation: ConcurrentOperation,
    completion: @escaping @Sendable (OperationConditionResult) -> Void
  ) {
    Task {
      completion(await self.evaluate())
    }
  }
}
