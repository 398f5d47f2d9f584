/// Callbacks for the events of a mutation's store.
///
/// The callbacks receive the arguments of the attempt that caused them, and results unwrapped
/// from ``MutationOperationValue``:
///
/// ```swift
/// let subscription = store.subscribe(
///   with: MutationEventHandler(
///     onMutatingStarted: { draft, _ in print("Sending \(draft.title)") },
///     onMutationResultReceived: { draft, result, _ in print(draft.title, result) }
///   )
/// )
/// ```
///
/// The events of one attempt, in order: `stateChanged` (loading), `mutatingStarted`, one
/// `mutationResultReceived` per yield followed by a `stateChanged`, the final
/// `mutationResultReceived`, `mutatingEnded`, and the final `stateChanged`.
/// `onMutationResultReceived` and `onMutatingEnded` fire before the state changes: read the new
/// state in `onStateChanged`.
public struct MutationEventHandler<State: _MutationStateProtocol>: Sendable {
  /// Called with the state after each change, and once with the current state on subscribe.
  public var onStateChanged: (@Sendable (State, OperationContext) -> Void)?

  /// Called with the arguments when an attempt starts.
  public var onMutatingStarted: (@Sendable (State.Arguments, OperationContext) -> Void)?

  /// Called with the arguments for each yielded result and for the final result of an attempt,
  /// before the state changes; the context's ``OperationContext/operationResultUpdateReason``
  /// tells them apart.
  public var onMutationResultReceived:
    (
      @Sendable (State.Arguments, Result<State.Value, State.Failure>, OperationContext) ->
        Void
    )?

  /// Called with the arguments when an attempt ends, before the state changes.
  public var onMutatingEnded: (@Sendable (State.Arguments, OperationContext) -> Void)?

  /// Creates a handler.
  ///
  /// - Parameters:
  ///   - onStateChanged: Called with the state after each change.
  ///   - onMutatingStarted: Called when an attempt starts.
  ///   - onMutationResultReceived: Called for each result of an attempt.
  ///   - onMutatingEnded: Called when an attempt ends.
  public init(
    onStateChanged: (@Sendable (State, OperationContext) -> Void)? = nil,
    onMutatingStarted: (@Sendable (State.Arguments, OperationContext) -> Void)? = nil,
    onMutationResultReceived: (
      @Sendable (State.Arguments, Result<State.Value, State.Failure>, OperationContext) -> Void
    )? = nil,
    onMutatingEnded: (@Sendable (State.Arguments, OperationContext) -> Void)? = nil
  ) {
    self.onStateChanged = onStateChanged
    self.onMutatingStarted = onMutatingStarted
    self.onMutationResultReceived = onMutationResultReceived
    self.onMutatingEnded = onMutatingEnded
  }

  /// The same callbacks as an ``OperationEventHandler``.
  ///
  /// The arguments come from the event's context, where a mutation's store puts them for every
  /// attempt; an event whose context has no arguments of the mutation's type is skipped.
  public var operationEventHandler: OperationEventHandler<State> {
    var handler = OperationEventHandler<State>(onStateChanged: self.onStateChanged)
    if let onMutatingStarted = self.onMutatingStarted {
      handler.onRunStarted = { context in
        guard let arguments = context.mutationArguments(as: State.Arguments.self) else { return }
        onMutatingStarted(arguments, context)
      }
    }
    if let onMutationResultReceived = self.onMutationResultReceived {
      handler.onResultReceived = { result, context in
        guard let arguments = context.mutationArguments(as: State.Arguments.self) else { return }
        onMutationResultReceived(arguments, result.map { $0.returnValue }, context)
      }
    }
    if let onMutatingEnded = self.onMutatingEnded {
      handler.onRunEnded = { context in
        guard let arguments = context.mutationArguments(as: State.Arguments.self) else { return }
        onMutatingEnded(arguments, context)
      }
    }
    return handler
  }
}
