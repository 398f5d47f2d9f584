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
    self.modifier(_StaleWhenModifier(predicate: Self.erasedStalePredicate(predicate)))
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
  /// The store also learns the value's freshness lifetime, which
  /// ``OperationStore/fetchIfNeeded(using:)`` needs to serve a stale value while it refreshes it
  /// and to refresh a value early (see ``EarlyRefresh``). With several `stale(after:)` modifiers,
  /// the shortest duration is the lifetime.
  ///
  /// - Parameters:
  ///   - duration: How long a value stays fresh after its last update.
  ///   - whenNoValue: Whether a store that has never received a value is stale.
  /// - Returns: The modified operation.
  public func stale(
    after duration: OperationDuration,
    whenNoValue: Bool = true
  ) -> ModifiedOperation<Self, _StaleWhenModifier<Self>> {
    let predicate = Self.erasedStalePredicate { state, context in
      guard let date = state.valueLastUpdatedAt else { return whenNoValue }
      let age = context.operationClock.now().timeIntervalSince(date)
      return OperationDuration.seconds(age) > duration
    }
    return self.modifier(_StaleWhenModifier(freshnessLifetime: duration, predicate: predicate))
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
  /// A predicate on any state that applies `predicate` to a state of this operation's `State`
  /// type (unwrapping the state of a store with a default value), and counts every other state
  /// as not stale.
  fileprivate static func erasedStalePredicate(
    _ predicate: @escaping @Sendable (State, OperationContext) -> Bool
  ) -> @Sendable (any OperationState, OperationContext) -> Bool {
    { state, context in
      guard let state = unwrapState(state, as: State.self) else { return false }
      return predicate(state, context)
    }
  }

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
  /// How long a value stays fresh, when the predicate is an age limit (`stale(after:)`).
  let freshnessLifetime: OperationDuration?

  init(
    freshnessLifetime: OperationDuration? = nil,
    predicate: @escaping @Sendable (any OperationState, OperationContext) -> Bool
  ) {
    self.freshnessLifetime = freshnessLifetime
    self.predicate = predicate
  }

  /// Adds the predicate to the context's stale condition, and records the freshness lifetime of
  /// an age limit.
  ///
  /// - Parameter context: The context to prepare.
  public func setup(context: inout OperationContext) {
    context.staleWhenRevalidateCondition.add(self.predicate)
    if let lifetime = self.freshnessLifetime {
      // NB: Stale predicates combine with OR, so the shortest age limit is the one that holds
      // first.
      context.freshnessLifetime = min(context.freshnessLifetime ?? lifetime, lifetime)
    }
  }
}

extension OperationContext {
  /// How long a store's value stays fresh after its last update, when a `stale(after:)` modifier
  /// says so (the shortest of several); `nil` when no modifier gave a duration.
  ///
  /// Stale predicates without a duration leave it alone: the store cannot tell when their value
  /// goes stale, so ``OperationStore/fetchIfNeeded(using:)`` neither serves it stale nor
  /// refreshes it early.
  package var freshnessLifetime: OperationDuration? {
    get { self[FreshnessLifetimeKey.self] }
    set { self[FreshnessLifetimeKey.self] = newValue }
  }

  private enum FreshnessLifetimeKey: Key {
    static let defaultValue: OperationDuration? = nil
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
