extension OperationRequest {
  /// Waits for a duration before each run of the operation.
  ///
  /// The wait goes through the context's ``OperationContext/operationDelayer``, so tests inject a
  /// delayer instead of sleeping. A duration of zero or less runs the operation at once, without
  /// asking the delayer.
  ///
  /// ```swift
  /// let request = RefreshFeed()
  ///   .delayed(by: .milliseconds(300))
  /// ```
  ///
  /// Cancellation: when the task is cancelled during the wait (or before it), the run throws
  /// `CancellationError` without calling the operation, provided `Failure` can hold it (as
  /// `any Error` can). With a typed `Failure` that cannot, nothing can be thrown, so the operation
  /// runs at once and handles the cancelled task itself.
  ///
  /// > Note: The modifier waits before *every* run it wraps: placed inside `retry`, each attempt
  /// > waits; placed outside, only the first one does.
  ///
  /// - Parameter duration: How long to wait before running the operation.
  /// - Returns: The modified operation.
  public func delayed(
    by duration: OperationDuration
  ) -> ModifiedOperation<Self, _DelayedModifier<Self>> {
    self.modifier(_DelayedModifier(duration: duration))
  }

  /// Waits for a Swift `Duration` before each run of the operation.
  ///
  /// This is ``delayed(by:)-(OperationDuration)`` for a `Duration`.
  ///
  /// - Parameter duration: How long to wait before running the operation.
  /// - Returns: The modified operation.
  @_disfavoredOverload
  public func delayed(by duration: Duration) -> ModifiedOperation<Self, _DelayedModifier<Self>> {
    self.delayed(by: OperationDuration(duration: duration))
  }
}

/// The modifier behind ``OperationRequest/delayed(by:)-(OperationDuration)``.
public struct _DelayedModifier<Operation: OperationRequest>: OperationModifier, Sendable {
  let duration: OperationDuration

  /// Waits on the context's delayer, then runs the operation.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws(Operation.Failure) -> Operation.Value {
    if self.duration > .zero {
      // NB: A delayer throws only when its task is cancelled; cancellation is checked afterwards
      // as well, for a delayer that returns normally although its task was cancelled.
      try? await context.operationDelayer.delay(for: self.duration)
      if Task.isCancelled, let cancellation = CancellationError() as? Operation.Failure {
        throw cancellation
      }
    }
    return try await operation.run(isolation: isolation, in: context, with: continuation)
  }
}
