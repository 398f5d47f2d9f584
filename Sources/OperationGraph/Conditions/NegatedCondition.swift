/// A condition that holds when another one fails, and fails when it holds.
///
/// Its name is `Not<inner name>`; its mutual exclusion and its dependency are the inner
/// condition's. When the inner condition is satisfied, the negation fails with
/// ``NegatedConditionSatisfied``; a cancellation stays a cancellation.
///
/// ```swift
/// try graph.add(showOnboarding, conditions: [NegatedCondition(HasSeenOnboarding())])
/// ```
public struct NegatedCondition<Inner: NamedCondition>: NamedCondition {
  /// The condition it negates.
  public let inner: Inner

  /// Negates a condition.
  public init(_ inner: Inner) {
    self.inner = inner
  }

  public var name: String {
    "Not<\(self.inner.name)>"
  }

  public var mutualExclusionCategory: String? {
    self.inner.mutualExclusionCategory
  }
}

extension NegatedCondition: GraphCondition where Inner: GraphCondition {
  public var dependency: GraphWork<Void>? {
    self.inner.dependency
  }

  public func evaluate(in context: ConditionContext) async -> ConditionResult {
    self.negate(await self.inner.evaluate(in: context))
  }
}

extension NegatedCondition {
  /// The negation of the inner condition's verdict: a cancellation stays a cancellation.
  package func negate(_ result: ConditionResult) -> ConditionResult {
    switch result {
    case .satisfied: .failed(NegatedConditionSatisfied(name: self.inner.name))
    case .failed: .satisfied
    case .cancelled: .cancelled
    }
  }
}

/// The condition inside a ``NegatedCondition`` was satisfied.
public struct NegatedConditionSatisfied: Error, Hashable, Sendable, CustomStringConvertible {
  /// The inner condition's name.
  public let name: String

  /// Creates the error.
  public init(name: String) {
    self.name = name
  }

  public var description: String {
    "The condition '\(self.name)' was satisfied, and its negation requires that it is not."
  }
}
