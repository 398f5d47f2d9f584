/// The OR of the stale predicates that `staleWhen…` modifiers add to a context.
///
/// With no predicate a store is always stale, so it runs on its first subscriber whenever
/// automatic running is enabled.
@_spi(StaleWhenRevalidate) @_spi(StaleWhenRevalidateCondition)
public struct StaleWhenRevalidateCondition: Sendable {
  private var predicates = [@Sendable (any OperationState, OperationContext) -> Bool]()

  /// Creates a condition with no predicate, which is always satisfied.
  public init() {}

  /// Adds a predicate; the condition holds when any predicate holds.
  ///
  /// - Parameter predicate: Returns whether a state is stale.
  public mutating func add(
    _ predicate: @escaping @Sendable (any OperationState, OperationContext) -> Bool
  ) {
    self.predicates.append(predicate)
  }

  /// Whether a state is stale.
  ///
  /// - Parameters:
  ///   - state: The state.
  ///   - context: The context of the store.
  /// - Returns: `true` when there is no predicate or any predicate holds.
  public func evaluate(state: some OperationState, in context: OperationContext) -> Bool {
    self.predicates.isEmpty || self.predicates.contains { $0(state, context) }
  }
}

extension OperationContext {
  /// The condition that decides whether a store's value is stale.
  @_spi(StaleWhenRevalidate) @_spi(StaleWhenRevalidateCondition)
  public var staleWhenRevalidateCondition: StaleWhenRevalidateCondition {
    get { self[StaleWhenRevalidateConditionKey.self] }
    set { self[StaleWhenRevalidateConditionKey.self] = newValue }
  }

  private enum StaleWhenRevalidateConditionKey: Key {
    static let defaultValue = StaleWhenRevalidateCondition()
  }
}
