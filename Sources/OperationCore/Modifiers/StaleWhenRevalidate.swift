public import Foundation

// MARK: - Modifiers

extension StatefulOperationRequest where Self: SendableMetatype, State: SendableMetatype {
  /// Marks the store's value stale whenever `predicate` holds.
  ///
  /// Stale predicates combine with OR: with several `staleWhen…` modifiers the value is stale when
  /// any of them says so. Without any, a store is always stale. Staleness decides whether a store
  /// runs on its first subscriber and whether ``StatefulOperationRequest/rerunOnChange(of:)``
  /// reruns.
  ///
  /// A predicate only ever sees a state of this operation's `State` type; the state of a store
  /// with a ``StatefulOperationRequest/defaultValue(_:)`` is unwrapped to it. For any other
  /// state the predicate counts as not stale.
  ///
  /// - Parameter predicate: Whether the state is stale, given the store's context.
  /// - Returns: The modified operation.
  public func staleWhen(
    predicate: @escaping @Sendable (State, OperationContext) -> Bool
  ) -> ModifiedOperation<Self, _StaleWhenModifier<Self>> {
    self.modifier(
      _StaleWhenModifier { state, context in
        guard let state = unwrapState(state, as: State.self) else { return false }
        return predicate(state, context)
      }
    )
  }

  /// Marks the store's value stale while a run specification is satisfied.
  ///
  /// - Parameter specification: The specification, evaluated in the store's context.
  /// - Returns: The modified operation.
  public func staleWhen(
    satisfying specification: some OperationRunSpecification & Sendable
  ) -> ModifiedOperation<Self, _StaleWhenModifier<Self>> {
    self.modifier(
      _StaleWhenModifier { _, context in specification.isSatisfied(in: context) }
    )
  }

  /// Marks the store's value stale once it is older than `duration`, by the context's
  /// ``OperationContext/operationClock``.
  ///
  /// - Parameters:
  ///   - duration: How long a value stays fresh after its last update.
  ///   - whenNoValue: Whether a store that has never received a value is stale.
  /// - Returns: The modified operation.
  public func stale(
    after duration: OperationDuration,
    whenNoValue: Bool = true
  ) -> ModifiedOperation<Self, _StaleWhenModifier<Self>> {
    self.staleWhen { state, context in
      guard let date = state.valueLastUpdatedAt else { return whenNoValue }
      let age = context.operationClock.now().timeIntervalSince(date)
      return OperationDuration.seconds(age) > duration
    }
  }

  /// Marks the store's value stale once it is older than `duration`, by the context's
  /// ``OperationContext/operationClock``.
  ///
  /// - Parameters:
  ///   - duration: How long a value stays fresh after its last update.
  ///   - whenNoValue: Whether a store that has never received a value is stale.
  /// - Returns: The modified operation.
  @_disfavoredOverload
  public func stale(
    after duration: Duration,
    whenNoValue: Bool = true
  ) -> ModifiedOperation<Self, _StaleWhenModifier<Self>> {
    self.stale(after: OperationDuration(duration: duration), whenNoValue: whenNoValue)
  }

  /// Marks the store's value stale once it is older than `seconds`.
  ///
  /// A store that has never received a value is always stale with this variant.
  ///
  /// - Parameter seconds: How long a value stays fresh after its last update.
  /// - Returns: The modified operation.
  @available(*, deprecated, message: "Pass an `OperationDuration` or a `Duration` instead.")
  public func stale(
    after seconds: TimeInterval
  ) -> ModifiedOperation<Self, _StaleWhenModifier<Self>> {
    self.stale(after: OperationDuration.seconds(seconds), whenNoValue: true)
  }
}

extension StatefulOperationRequest where Self: SendableMetatype, State: SendableMetatype {
  /// Marks the store's value stale while it has no value.
  ///
  /// - Returns: The modified operation.
  public func staleWhenNoValue<Wrapped>() -> ModifiedOperation<
    Self, _StaleWhenModifier<Self>
  > where State.StateValue == Wrapped? {
    self.staleWhen { state, _ in state.currentValue == nil }
  }
}

/// The modifier behind the `staleWhen…` and `stale(after:)` modifiers.
public struct _StaleWhenModifier<
  Operation: StatefulOperationRequest
>: _ContextUpdatingOperationModifier, Sendable {
  let predicate: @Sendable (any OperationState, OperationContext) -> Bool

  /// Adds the predicate to the context's stale condition.
  ///
  /// - Parameter context: The context to prepare.
  public func setup(context: inout OperationContext) {
    context.staleWhenRevalidateCondition.add(self.predicate)
  }
}

/// The state itself when it has type `type`, or the state it wraps when that has type `type`.
private func unwrapState<Wanted: OperationState & SendableMetatype>(
  _ state: any OperationState,
  as type: Wanted.Type
) -> Wanted? {
  if let state = state as? Wanted { return state }
  return (state as? any _BaseStateWrapping)?.wrappedBaseState as? Wanted
}

/// A state that wraps another, such as the state of a store with a default value.
protocol _BaseStateWrapping {
  /// The wrapped state.
  var wrappedBaseState: any OperationState { get }
}

extension DefaultOperationState: _BaseStateWrapping {
  var wrappedBaseState: any OperationState { self.base }
}
