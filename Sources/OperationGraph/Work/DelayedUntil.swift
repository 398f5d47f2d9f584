public import OperationCore

#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import struct Foundation.Date
#endif

extension OperationRequest {
  /// Waits until a date before each run of the request.
  ///
  /// The modifier reads the current date from the context's ``OperationContext/operationClock``
  /// and waits the difference on its ``OperationContext/operationDelayer``, so tests inject a
  /// clock and a delayer instead of sleeping. A date that has passed (or is now) runs the request
  /// at once, without asking the delayer. This is the date form of the core's
  /// ``OperationRequest/delayed(by:)-(OperationDuration)``, and waits the same way:
  ///
  /// ```swift
  /// let request = PublishPost(id: id)
  ///   .delayed(until: scheduledDate)
  /// ```
  ///
  /// Cancellation: when the task is cancelled during the wait (or before it), the run throws
  /// `CancellationError` without calling the request, provided `Failure` can hold it (as
  /// `any Error` can). With a typed `Failure` that cannot, the request runs at once and handles
  /// the cancelled task itself.
  ///
  /// > Note: The date is fixed, so it is the same for every run: a second run after the date runs
  /// > at once.
  ///
  /// - Parameter date: When to run the request.
  /// - Returns: The modified request.
  public func delayed(until date: Date) -> ModifiedOperation<Self, _DelayedUntilModifier<Self>> {
    self.modifier(_DelayedUntilModifier(date: date))
  }
}

/// The modifier behind ``OperationRequest/delayed(until:)``.
public struct _DelayedUntilModifier<Operation: OperationRequest>: OperationModifier, Sendable {
  let date: Date

  /// Waits until the date on the context's clock and delayer, then runs the request.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of this run.
  ///   - operation: The wrapped request.
  ///   - continuation: Receives the request's yields.
  /// - Returns: The request's value.
  /// - Throws: The request's error, or `CancellationError` when the wait is cancelled.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws(Operation.Failure) -> Operation.Value {
    // NB: The core's delay does the waiting, so both delays treat cancellation alike; only the
    // duration is worked out here, when the run starts.
    let wait = OperationDuration.until(self.date, in: context)
    return try await operation.delayed(by: wait)
      .run(isolation: isolation, in: context, with: continuation)
  }
}

extension OperationDuration {
  /// The time from the context clock's current date until `date`: negative for a past date.
  static func until(_ date: Date, in context: OperationContext) -> Self {
    .seconds(date.timeIntervalSince(context.operationClock.now()))
  }
}
