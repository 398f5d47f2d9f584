/// Callbacks for the events of an ``OpaqueOperationStore``, with type-erased values.
public struct OpaqueOperationEventHandler: Sendable {
  /// Called with the state after each change, and once with the current state on subscribe.
  public var onStateChanged: (@Sendable (OpaqueOperationState, OperationContext) -> Void)?

  /// Called when a run starts.
  public var onRunStarted: (@Sendable (OperationContext) -> Void)?

  /// Called when a run ends, before the state changes.
  public var onRunEnded: (@Sendable (OperationContext) -> Void)?

  /// Called for each yielded result and for the final result, before the state changes.
  public var onResultReceived:
    (@Sendable (Result<any Sendable, any Error>, OperationContext) -> Void)?

  /// Creates a handler.
  ///
  /// - Parameters:
  ///   - onStateChanged: Called with the state after each change.
  ///   - onRunStarted: Called when a run starts.
  ///   - onRunEnded: Called when a run ends.
  ///   - onResultReceived: Called for each result.
  public init(
    onStateChanged: (@Sendable (OpaqueOperationState, OperationContext) -> Void)? = nil,
    onRunStarted: (@Sendable (OperationContext) -> Void)? = nil,
    onRunEnded: (@Sendable (OperationContext) -> Void)? = nil,
    onResultReceived: (@Sendable (Result<any Sendable, any Error>, OperationContext) -> Void)? = nil
  ) {
    self.onStateChanged = onStateChanged
    self.onRunStarted = onRunStarted
    self.onRunEnded = onRunEnded
    self.onResultReceived = onResultReceived
  }

  func casted<State: OperationState & Sendable>(to _: State.Type) -> OperationEventHandler<State> {
    var handler = OperationEventHandler<State>(
      onRunStarted: self.onRunStarted,
      onRunEnded: self.onRunEnded
    )
    if let onStateChanged = self.onStateChanged {
      handler.onStateChanged = { state, context in
        onStateChanged(OpaqueOperationState(state), context)
      }
    }
    if let onResultReceived = self.onResultReceived {
      handler.onResultReceived = { result, context in
        let erased: Result<any Sendable, any Error> =
          switch result {
          case .success(let value): .success(value)
          case .failure(let error): .failure(error)
          }
        onResultReceived(erased, context)
      }
    }
    return handler
  }
}
