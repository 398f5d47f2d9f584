/// Callbacks for the events of an ``OperationStore``.
///
/// Every callback is optional. `onResultReceived` and `onRunEnded` fire before the state changes:
/// read the new state in `onStateChanged`.
///
/// ```swift
/// let subscription = store.subscribe(
///   with: OperationEventHandler { state, _ in
///     print(state.status)
///   }
/// )
/// ```
public struct OperationEventHandler<State: OperationState>: Sendable {
  /// Called with the state after each change, and once with the current state on subscribe.
  public var onStateChanged: (@Sendable (State, OperationContext) -> Void)?

  /// Called when a run starts.
  public var onRunStarted: (@Sendable (OperationContext) -> Void)?

  /// Called when a run ends, before the state changes.
  public var onRunEnded: (@Sendable (OperationContext) -> Void)?

  /// Called for each yielded result and for the final result, before the state changes.
  public var onResultReceived:
    (@Sendable (Result<State.OperationValue, State.Failure>, OperationContext) -> Void)?

  /// Called with the events that an operation sends through
  /// ``OperationContext/operationEventSink`` during a run, such as the page events of a
  /// paginated request, in order with the store's other events.
  @usableFromInline
  package var onOperationEvent: (@Sendable (any Sendable, OperationContext) -> Void)?

  /// Whether the handler has no callback at all, so that a store can skip delivering to it.
  @inlinable
  package var isEmpty: Bool {
    self.onStateChanged == nil && self.onRunStarted == nil && self.onRunEnded == nil
      && self.onResultReceived == nil && self.onOperationEvent == nil
  }

  /// Creates a handler.
  ///
  /// - Parameters:
  ///   - onStateChanged: Called with the state after each change.
  ///   - onRunStarted: Called when a run starts.
  ///   - onRunEnded: Called when a run ends.
  ///   - onResultReceived: Called for each result.
  public init(
    onStateChanged: (@Sendable (State, OperationContext) -> Void)? = nil,
    onRunStarted: (@Sendable (OperationContext) -> Void)? = nil,
    onRunEnded: (@Sendable (OperationContext) -> Void)? = nil,
    onResultReceived: (
      @Sendable (Result<State.OperationValue, State.Failure>, OperationContext) -> Void
    )? = nil
  ) {
    self.onStateChanged = onStateChanged
    self.onRunStarted = onRunStarted
    self.onRunEnded = onRunEnded
    self.onResultReceived = onResultReceived
  }
}
