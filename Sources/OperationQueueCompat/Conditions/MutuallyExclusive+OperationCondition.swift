import OperationGraph

extension MutuallyExclusive: OperationCondition {
  /// `true`: operations with this condition run one at a time, and never beside a graph node of
  /// the same category.
  public var isMutuallyExclusive: Bool { true }

  /// Always satisfied: the exclusion comes from the category's lock.
  public func evaluate(
    for operation: ConcurrentOperation,
    completion: @escaping @Sendable (OperationConditionResult) -> Void
  ) {
    completion(.satisfied)
  }
}
