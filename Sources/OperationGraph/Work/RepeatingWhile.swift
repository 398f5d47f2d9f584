@_spi(Warnings) public import OperationCore

extension OperationRequest where Value: Sendable {
  /// Runs the request again and again while a predicate of the run count and the latest outcome
  /// holds, up to a largest number of runs, waiting between runs by a wait strategy.
  ///
  /// This is danthorpe/Operations' `RepeatedOperation` as a modifier. One run of the modified
  /// request works like this:
  ///
  /// 1. The request runs. Its outcome (a value or an error) is the latest one, and `count` is the
  ///    number of runs so far: 1 after the first.
  /// 2. The loop ends with the latest outcome, returning its value or throwing its error, when any
  ///    of these holds, checked in this order:
  ///    - `maxCount` runs have happened (the predicate is not called then);
  ///    - `shouldRepeat(count, outcome)` returns `false`;
  ///    - the task is cancelled.
  /// 3. Otherwise the outcome is yielded through the continuation, so that a store (or any
  ///    continuation) sees every run, errors included, and the loop waits `wait(count)` on the
  ///    context's ``OperationContext/operationDelayer`` (no wait for zero or less). If the task is
  ///    cancelled by the end of the wait, the loop ends with the latest outcome. Otherwise it goes
  ///    back to step 1.
  ///
  /// ```swift
  /// let request = ExportStatus(id: exportID)
  ///   .repeating(maxCount: 30, waiting: .incrementing(from: .seconds(1), by: .seconds(1))) {
  ///     count, outcome in (try? outcome.get().isFinished) != true
  ///   }
  /// ```
  ///
  /// **Earlier outcomes.** Only the last outcome is returned or thrown; the yields are the log of
  /// the earlier ones. A request repeated while it fails, which fails 4 times and then succeeds,
  /// runs 5 times, yields the 4 errors and returns the value.
  ///
  /// **The core's polling.** ``OperationRequest/repeating(every:maxCount:while:)-(OperationDuration,_,_)``
  /// is the special case with a fixed wait and a predicate that ignores the count; its loop works
  /// the same way. This one adds the count (Operations' `Repeatable` asks `shouldRepeat(count)`)
  /// and a wait that changes from run to run.
  ///
  /// **Cancellation** stops the loop without another run; it does not turn the latest outcome into
  /// a `CancellationError`. Cancelling the task cancels the run in progress, which usually throws
  /// its `CancellationError`, and the loop ends with it.
  ///
  /// > Note: Modifiers inside this one act on each run (a `retrying` inside retries each run);
  /// > modifiers outside it see the whole loop as one run.
  ///
  /// - Parameters:
  ///   - maxCount: The largest number of runs, counting the first; `nil` for no limit. A value
  ///     below 1 is reported as an issue and treated as 1.
  ///   - wait: How long to wait after run *n*, as `wait(n)`; no wait by default.
  ///   - shouldRepeat: Whether to run again after `count` runs, the latest with `outcome`.
  /// - Returns: The modified request.
  public func repeating(
    maxCount: Int? = nil,
    waiting wait: WaitStrategy = .none,
    while shouldRepeat:
      @escaping @Sendable (_ count: Int, _ outcome: Result<Value, Failure>) ->
      Bool
  ) -> ModifiedOperation<Self, _RepeatingModifier<Self>> {
    var count = maxCount
    if let maxCount, maxCount < 1 {
      reportWarning(.repeatingMaxCountNotPositive(maxCount))
      count = 1
    }
    // NB: The core's polling modifier is this loop with a fixed wait and a predicate of the
    // outcome alone.
    return self.modifier(
      _RepeatingModifier(maxCount: count, wait: { wait($0) }, shouldContinue: shouldRepeat)
    )
  }

  /// Runs the request again and again while a predicate of the run count holds, up to a largest
  /// number of runs, waiting between runs by a wait strategy.
  ///
  /// This is danthorpe/Operations' `Repeatable` `shouldRepeat(count)`, and
  /// `repeating(maxCount:waiting:while:)` (the form whose predicate takes the outcome) with a
  /// predicate that ignores the outcome; everything else works the same way.
  ///
  /// ```swift
  /// let request = Heartbeat().repeating(waiting: .fixed(.seconds(10))) { count in count < 5 }
  /// ```
  ///
  /// - Parameters:
  ///   - maxCount: The largest number of runs, counting the first; `nil` for no limit.
  ///   - wait: How long to wait after run *n*, as `wait(n)`; no wait by default.
  ///   - shouldRepeat: Whether to run again after `count` runs.
  /// - Returns: The modified request.
  public func repeating(
    maxCount: Int? = nil,
    waiting wait: WaitStrategy = .none,
    while shouldRepeat: @escaping @Sendable (_ count: Int) -> Bool
  ) -> ModifiedOperation<Self, _RepeatingModifier<Self>> {
    self.repeating(maxCount: maxCount, waiting: wait) { count, _ in shouldRepeat(count) }
  }
}
