// MARK: - NotRunSpecification

/// A run specification that holds when its base does not.
///
/// Create one with the prefix `!` operator:
///
/// ```swift
/// let offline = !NetworkConnectionRunSpecification(observer: observer)
/// offline.isSatisfied(in: context)  // true while the observer is not connected
/// ```
///
/// Subscribing subscribes to the base, so every change of the base is a change of its negation.
public struct NotRunSpecification<Base: OperationRunSpecification>: OperationRunSpecification {
  /// The specification that is negated.
  public let base: Base

  /// Creates a specification that negates `base`.
  ///
  /// - Parameter base: The specification to negate.
  public init(_ base: Base) {
    self.base = base
  }

  /// Whether the base specification is not satisfied.
  ///
  /// - Parameter context: The context of the operation.
  /// - Returns: The negation of the base's answer.
  public func isSatisfied(in context: OperationContext) -> Bool {
    !self.base.isSatisfied(in: context)
  }

  /// Subscribes to the base specification's changes.
  ///
  /// - Parameters:
  ///   - context: The context of the operation.
  ///   - onChange: Called after each possible change of the base.
  /// - Returns: The base's subscription.
  public func subscribe(
    in context: OperationContext,
    onChange: @escaping @Sendable () -> Void
  ) -> OperationSubscription {
    self.base.subscribe(in: context, onChange: onChange)
  }
}

extension NotRunSpecification: Sendable where Base: Sendable {}

// MARK: - Operator

/// Negates a run specification.
///
/// ```swift
/// let spec = !AlwaysRunSpecification(isTrue: true)
/// spec.isSatisfied(in: OperationContext())  // false
/// ```
///
/// - Parameter base: The specification to negate.
/// - Returns: A ``NotRunSpecification`` wrapping `base`.
public prefix func ! <Base: OperationRunSpecification>(
  _ base: Base
) -> NotRunSpecification<Base> {
  NotRunSpecification(base)
}
