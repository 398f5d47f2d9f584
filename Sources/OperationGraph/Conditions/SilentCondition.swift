/// A condition evaluated like another, without the other's dependency: check that permission
/// was given, without prompting for it.
///
/// Its name is `Silent<inner name>`; its mutual exclusion is the inner condition's.
public struct SilentCondition<Inner: NamedCondition>: NamedCondition {
  /// The condition it silences.
  public let inner: Inner

  /// Silences a condition.
  public init(_ inner: Inner) {
    self.inner = inner
  }

  public var name: String {
    "Silent<\(self.inner.name)>"
  }

  public var mutualExclusionCategory: String? {
    self.inner.mutualExclusionCategory
  }
}

extension SilentCondition: GraphCondition where Inner: GraphCondition {
  public var dependency: GraphWork<Void>? {
    nil
  }

  public func evaluate(in context: ConditionContext) async -> ConditionResult {
    await self.inner.evaluate(in: context)
  }
}
