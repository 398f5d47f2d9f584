/// A condition that decides when an operation runs by itself, and tells when it may have changed.
///
/// Stores consult the context's ``OperationContext/automaticRunningSpecification`` before running
/// automatically (for example on their first subscriber). Combine specifications with `!`, `&&`
/// and `||`.
///
/// A specification tracks its value eagerly; ``subscribe(in:onChange:)`` only says that the value
/// may have changed, and the consumer reads ``isSatisfied(in:)`` again.
public protocol OperationRunSpecification {
  /// Whether the condition holds now.
  ///
  /// - Parameter context: The context of the operation.
  /// - Returns: `true` when the condition holds.
  func isSatisfied(in context: OperationContext) -> Bool

  /// Calls `onChange` whenever the condition may have changed.
  ///
  /// - Parameters:
  ///   - context: The context of the operation.
  ///   - onChange: Called after each possible change.
  /// - Returns: A subscription that stops the calls.
  func subscribe(
    in context: OperationContext,
    onChange: @escaping @Sendable () -> Void
  ) -> OperationSubscription
}

// MARK: - AlwaysRunSpecification

/// A specification with a fixed value.
public struct AlwaysRunSpecification: OperationRunSpecification, Hashable, Sendable {
  /// The fixed value.
  public let isTrue: Bool

  /// Creates a specification with a fixed value.
  ///
  /// - Parameter isTrue: The value.
  public init(isTrue: Bool) {
    self.isTrue = isTrue
  }

  /// Returns the fixed value.
  ///
  /// - Parameter context: The context of the operation, which is ignored.
  /// - Returns: ``isTrue``.
  public func isSatisfied(in context: OperationContext) -> Bool {
    self.isTrue
  }

  /// Returns an empty subscription, since a fixed value never changes.
  ///
  /// - Parameters:
  ///   - context: The context of the operation.
  ///   - onChange: Never called.
  /// - Returns: An empty subscription.
  public func subscribe(
    in context: OperationContext,
    onChange: @escaping @Sendable () -> Void
  ) -> OperationSubscription {
    .empty
  }
}

extension OperationRunSpecification where Self == AlwaysRunSpecification {
  /// A specification with a fixed value.
  ///
  /// - Parameter isTrue: The value.
  /// - Returns: An ``AlwaysRunSpecification``.
  public static func always(_ isTrue: Bool) -> Self {
    AlwaysRunSpecification(isTrue: isTrue)
  }
}

// MARK: - AnySendableRunSpecification

/// A type-erased, sendable run specification.
public struct AnySendableRunSpecification: OperationRunSpecification, Sendable {
  /// The erased specification.
  public let base: any OperationRunSpecification & Sendable

  /// Erases a specification.
  ///
  /// - Parameter base: The specification to erase.
  public init(_ base: any OperationRunSpecification & Sendable) {
    self.base = base
  }

  /// Whether the erased specification is satisfied.
  ///
  /// - Parameter context: The context of the operation.
  /// - Returns: The erased specification's answer.
  public func isSatisfied(in context: OperationContext) -> Bool {
    self.base.isSatisfied(in: context)
  }

  /// Subscribes to the erased specification's changes.
  ///
  /// - Parameters:
  ///   - context: The context of the operation.
  ///   - onChange: Called after each possible change.
  /// - Returns: The erased specification's subscription.
  public func subscribe(
    in context: OperationContext,
    onChange: @escaping @Sendable () -> Void
  ) -> OperationSubscription {
    self.base.subscribe(in: context, onChange: onChange)
  }
}

// MARK: - Context

extension OperationContext {
  /// The condition under which stores run the operation by themselves.
  ///
  /// The default is never, so a detached store does not run on its own; the client's default
  /// store creator enables it for every operation.
  public var automaticRunningSpecification: any OperationRunSpecification & Sendable {
    get { self[AutomaticRunningSpecificationKey.self] }
    set { self[AutomaticRunningSpecificationKey.self] = newValue }
  }

  private enum AutomaticRunningSpecificationKey: Key {
    static let defaultValue: any OperationRunSpecification & Sendable = AlwaysRunSpecification(
      isTrue: false
    )
  }
}
