/// Callbacks for the events of a query's store.
///
/// ```swift
/// let subscription = store.subscribe(
///   with: QueryEventHandler { state, _ in
///     print(state.currentValue)
///   }
/// )
/// ```
public struct QueryEventHandler<State: _QueryStateProtocol>: Sendable {
  /// Called with the state after each change, and once with the current state on subscribe.
  public var onStateChanged: (@Sendable (State, OperationContext) -> Void)?

  /// Called when a fetch starts.
  public var onFetchingStarted: (@Sendable (OperationContext) -> Void)?

  /// Called when a fetch ends, before the state changes.
  public var onFetchingEnded: (@Sendable (OperationContext) -> Void)?

  /// Called for each yielded result and for the final result, before the state changes.
  public var onResultReceived:
    (@Sendable (Result<State.OperationValue, State.Failure>, OperationContext) -> Void)?

  /// Creates a handler.
  ///
  /// - Parameters:
  ///   - onStateChanged: Called with the state after each change.
  ///   - onFetchingStarted: Called when a fetch starts.
  ///   - onFetchingEnded: Called when a fetch ends.
  ///   - onResultReceived: Called for each result.
  public init(
    onStateChanged: (@Sendable (State, OperationContext) -> Void)? = nil,
    onFetchingStarted: (@Sendable (OperationContext) -> Void)? = nil,
    onFetchingEnded: (@Sendable (OperationContext) -> Void)? = nil,
    onResultReceived: (
      @Sendable (Result<State.OperationValue, State.Failure>, OperationContext) -> Void
    )? = nil
  ) {
    self.onStateChanged = onStateChanged
    self.onFetchingStarted = onFetchingStarted
    self.onFetchingEnded = onFetchingEnded
    self.onResultReceived = onResultReceived
  }

  /// The same callbacks as an ``OperationEventHandler``.
  public var operationEventHandler: OperationEventHandler<State> {
    OperationEventHandler(
      onStateChanged: self.onStateChanged,
      onRunStarted: self.onFetchingStarted,
      onRunEnded: self.onFetchingEnded,
      onResultReceived: self.onResultReceived
    )
  }
}
