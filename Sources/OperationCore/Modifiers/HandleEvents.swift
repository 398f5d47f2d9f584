extension StatefulOperationRequest {
  /// Calls an event handler around every run of this operation.
  ///
  /// The handler's `onRunStarted` runs before the operation, `onResultReceived` runs for every
  /// yielded result (with ``OperationContext/operationResultUpdateReason`` set to
  /// `.yieldedResult`) and for the final result (`.returnedFinalResult`), and `onRunEnded` runs
  /// last, whether the run succeeded or failed. `onStateChanged` is never called: the modifier
  /// sees runs, not the store's state; subscribe to the store for state changes.
  ///
  /// - Parameter handler: The callbacks.
  /// - Returns: The modified operation.
  public func handleEvents(
    with handler: OperationEventHandler<State>
  ) -> ModifiedOperation<Self, _HandleEventsModifier<Self>> {
    self.modifier(_HandleEventsModifier(handler: handler))
  }
}

/// The modifier behind ``StatefulOperationRequest/handleEvents(with:)``.
public struct _HandleEventsModifier<Operation: StatefulOperationRequest>: OperationModifier,
  Sendable
{
  let handler: OperationEventHandler<Operation.State>

  /// Runs the operation, reporting its start, results and end to the handler.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of this run.
  ///   - operation: The wrapped operation.
  ///   - continuation: Receives intermediate results.
  /// - Returns: The value of the run.
  /// - Throws: The error of the run.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws(Operation.Failure) -> Operation.Value {
    let handler = self.handler
    handler.onRunStarted?(context)
    defer { handler.onRunEnded?(context) }
    let onResultReceived = handler.onResultReceived
    let forwarding = OperationContinuation<Operation.Value, Operation.Failure> {
      result,
      yieldContext in
      var eventContext = yieldContext ?? context
      eventContext.operationResultUpdateReason = .yieldedResult
      onResultReceived?(result, eventContext)
      continuation.yield(with: result, using: yieldContext)
    }
    let result: Result<Operation.Value, Operation.Failure>
    do throws(Operation.Failure) {
      result = .success(
        try await operation.run(isolation: isolation, in: context, with: forwarding)
      )
    } catch {
      result = .failure(error)
    }
    var finalContext = context
    finalContext.operationResultUpdateReason = .returnedFinalResult
    handler.onResultReceived?(result, finalContext)
    return try result.get()
  }
}
