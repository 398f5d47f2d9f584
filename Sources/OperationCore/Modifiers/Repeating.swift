extension OperationRequest where Value: Sendable {
  /// Runs the operation again and again while a predicate agrees, waiting between runs: polling.
  ///
  /// One run of the modified operation works like this:
  ///
  /// 1. The operation runs once. Its outcome (a value or an error) is the latest poll.
  /// 2. The loop ends with the latest poll, returning its value or throwing its error, when any of
  ///    these holds, checked in this order:
  ///    - `maxCount` runs have happened (the predicate is not called then);
  ///    - `shouldContinue` returns `false` for the latest poll;
  ///    - the task is cancelled.
  /// 3. Otherwise the latest poll is yielded through the continuation, so a store shows every
  ///    intermediate poll (an error poll sets the store's error while it keeps loading), and the
  ///    loop waits `interval` on the context's ``OperationContext/operationDelayer`` (no wait for
  ///    an interval of zero or less). If the task is cancelled during or by the end of the wait,
  ///    the loop ends with the latest poll, which the store then receives a second time.
  ///    Otherwise it goes back to step 1.
  ///
  /// ```swift
  /// let request = ExportStatusQuery(id: exportID)
  ///   .repeating(every: .seconds(2), maxCount: 30) { result in
  ///     (try? result.get().isFinished) != true
  ///   }
  /// ```
  ///
  /// Cancellation stops the loop without a further run; it does not turn the latest poll into a
  /// `CancellationError`. An operation cancelled in the middle of a poll ends the loop with that
  /// poll's outcome, usually its `CancellationError`.
  ///
  /// > Note: Modifiers inside this one act on each poll (a `retry` inside retries each poll);
  /// > modifiers outside it see the whole loop as one run.
  ///
  /// - Parameters:
  ///   - interval: How long to wait between two runs.
  ///   - maxCount: The largest number of runs; `nil` for no limit. A value below 1 is reported as
  ///     an issue and treated as 1.
  ///   - shouldContinue: Whether to run again after a poll with this outcome.
  /// - Returns: The modified operation.
  public func repeating(
    every interval: OperationDuration,
    maxCount: Int? = nil,
    while shouldContinue: @escaping @Sendable (Result<Value, Failure>) -> Bool
  ) -> ModifiedOperation<Self, _RepeatingModifier<Self>> {
    var count = maxCount
    if let maxCount, maxCount < 1 {
      reportWarning(.pollingMaxCountNotPositive(maxCount))
      count = 1
    }
    return self.modifier(
      _RepeatingModifier(
        maxCount: count,
        wait: { _ in interval },
        shouldContinue: { _, poll in shouldContinue(poll) }
      )
    )
  }

  /// Runs the operation again and again while a predicate agrees, waiting a Swift `Duration`
  /// between runs.
  ///
  /// This is ``repeating(every:maxCount:while:)-(OperationDuration,_,_)`` for a `Duration`.
  ///
  /// - Parameters:
  ///   - interval: How long to wait between two runs.
  ///   - maxCount: The largest number of runs; `nil` for no limit.
  ///   - shouldContinue: Whether to run again after a poll with this outcome.
  /// - Returns: The modified operation.
  @_disfavoredOverload
  public func repeating(
    every interval: Duration,
    maxCount: Int? = nil,
    while shouldContinue: @escaping @Sendable (Result<Value, Failure>) -> Bool
  ) -> ModifiedOperation<Self, _RepeatingModifier<Self>> {
    self.repeating(
      every: OperationDuration(duration: interval),
      maxCount: maxCount,
      while: shouldContinue
    )
  }
}

/// The modifier behind ``OperationRequest/repeating(every:maxCount:while:)-(OperationDuration,_,_)``.
public struct _RepeatingModifier<Operation: OperationRequest>: OperationModifier, Sendable
where Operation.Value: Sendable {
  let maxCount: Int?
  let wait: @Sendable (_ count: Int) -> OperationDuration
  let shouldContinue: @Sendable (_ count: Int, Result<Operation.Value, Operation.Failure>) -> Bool

  /// A modifier that runs the operation until `shouldContinue` (given the number of runs so far
  /// and the last outcome), `maxCount` or cancellation stops it, waiting `wait(count)` after run
  /// number `count`.
  ///
  /// Polling is the case of a fixed wait and a predicate of the outcome alone; OperationGraph's
  /// `repeating(maxCount:waiting:while:)` passes its wait strategy and its predicate of the count.
  package init(
    maxCount: Int?,
    wait: @escaping @Sendable (_ count: Int) -> OperationDuration,
    shouldContinue: @escaping @Sendable (Int, Result<Operation.Value, Operation.Failure>) -> Bool
  ) {
    self.maxCount = maxCount
    self.wait = wait
    self.shouldContinue = shouldContinue
  }

  /// Runs the operation until the predicate, the count limit or cancellation stops it, yielding
  /// every outcome but the last.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws(Operation.Failure) -> Operation.Value {
    var count = 0
    while true {
      let poll: Result<Operation.Value, Operation.Failure>
      do throws(Operation.Failure) {
        poll = .success(
          try await operation.run(isolation: isolation, in: context, with: continuation)
        )
      } catch {
        poll = .failure(error)
      }
      count += 1
      if let maxCount = self.maxCount, count >= maxCount {
        return try poll.get()
      }
      guard self.shouldContinue(count, poll), !Task.isCancelled else {
        return try poll.get()
      }
      continuation.yield(with: poll)
      let wait = self.wait(count)
      if wait > .zero {
        // NB: A delayer throws only when its task is cancelled, which the check below handles.
        try? await context.operationDelayer.delay(for: wait)
      }
      if Task.isCancelled {
        return try poll.get()
      }
    }
  }
}
