// MARK: - BinaryOperatorRunSpecification

/// A run specification that combines two specifications with a boolean operator.
///
/// Create one with `&&` or `||`; the operators compose, so any boolean expression of
/// specifications can be written directly:
///
/// ```swift
/// let query = PostQuery(id: 1).enableAutomaticRunning(
///   onlyWhen: .connected(to: network) && (.applicationIsActive(observer: activity) || isPinned)
/// )
/// ```
///
/// Both sides are evaluated every time (there is no short-circuit, so every side keeps tracking
/// its own value), and subscribing subscribes to both sides: a change on either side is reported
/// as a change of the combination. The combination is `Sendable` when both sides are.
public struct BinaryOperatorRunSpecification<
  Left: OperationRunSpecification,
  Right: OperationRunSpecification,
  Operator: _BinaryRunSpecificationOperator
>: OperationRunSpecification {
  /// The left-hand specification.
  public let left: Left

  /// The right-hand specification.
  public let right: Right

  /// The operator that combines the two answers.
  public let op: Operator

  /// Creates a specification that combines `left` and `right` with `op`.
  ///
  /// - Parameters:
  ///   - left: The left-hand specification.
  ///   - right: The right-hand specification.
  ///   - op: The operator that combines their answers.
  public init(left: Left, right: Right, op: Operator) {
    self.left = left
    self.right = right
    self.op = op
  }

  /// Combines both sides' answers with the operator.
  ///
  /// - Parameter context: The context of the operation.
  /// - Returns: The operator applied to both answers.
  public func isSatisfied(in context: OperationContext) -> Bool {
    let left = self.left.isSatisfied(in: context)
    let right = self.right.isSatisfied(in: context)
    return self.op.evaluate(left, right)
  }

  /// Subscribes to both sides' changes.
  ///
  /// - Parameters:
  ///   - context: The context of the operation.
  ///   - onChange: Called after each possible change of either side.
  /// - Returns: A subscription that ends both sides' subscriptions.
  public func subscribe(
    in context: OperationContext,
    onChange: @escaping @Sendable () -> Void
  ) -> OperationSubscription {
    .combined(
      self.left.subscribe(in: context, onChange: onChange),
      self.right.subscribe(in: context, onChange: onChange)
    )
  }
}

extension BinaryOperatorRunSpecification: Sendable
where Left: Sendable, Right: Sendable, Operator: Sendable {}

// MARK: - Operators

/// Combines two run specifications so that the result holds when both hold.
///
/// - Parameters:
///   - left: The left-hand specification.
///   - right: The right-hand specification.
/// - Returns: A ``BinaryOperatorRunSpecification`` that applies a boolean AND.
public func && <Left: OperationRunSpecification, Right: OperationRunSpecification>(
  _ left: Left,
  _ right: Right
) -> BinaryOperatorRunSpecification<Left, Right, _AndRunSpecificationOperator> {
  BinaryOperatorRunSpecification(left: left, right: right, op: _AndRunSpecificationOperator())
}

/// Combines two run specifications so that the result holds when either holds.
///
/// - Parameters:
///   - left: The left-hand specification.
///   - right: The right-hand specification.
/// - Returns: A ``BinaryOperatorRunSpecification`` that applies a boolean OR.
public func || <Left: OperationRunSpecification, Right: OperationRunSpecification>(
  _ left: Left,
  _ right: Right
) -> BinaryOperatorRunSpecification<Left, Right, _OrRunSpecificationOperator> {
  BinaryOperatorRunSpecification(left: left, right: right, op: _OrRunSpecificationOperator())
}

// MARK: - Operator Types

/// A boolean operator that a ``BinaryOperatorRunSpecification`` applies to its sides' answers.
public protocol _BinaryRunSpecificationOperator {
  /// Combines two answers.
  ///
  /// - Parameters:
  ///   - left: The left-hand answer.
  ///   - right: The right-hand answer.
  /// - Returns: The combined answer.
  func evaluate(_ left: Bool, _ right: Bool) -> Bool
}

/// The boolean AND behind `&&` on run specifications.
public struct _AndRunSpecificationOperator: _BinaryRunSpecificationOperator, Hashable, Sendable {
  /// Creates the operator.
  public init() {}

  /// Returns `left && right`.
  public func evaluate(_ left: Bool, _ right: Bool) -> Bool {
    left && right
  }
}

/// The boolean OR behind `||` on run specifications.
public struct _OrRunSpecificationOperator: _BinaryRunSpecificationOperator, Hashable, Sendable {
  /// Creates the operator.
  public init() {}

  /// Returns `left || right`.
  public func evaluate(_ left: Bool, _ right: Bool) -> Bool {
    left || right
  }
}
