extension OperationRequest where Failure == any Error {
  /// Fails a run with ``OperationTimeoutError`` when the operation takes longer than a duration.
  ///
  /// Each run races the operation against a timer that waits on the context's
  /// ``OperationContext/operationDelayer``. Both run as child tasks of a task group, so nothing
  /// outlives the run:
  ///
  /// - If the operation finishes first (with a value or an error), the timer is cancelled and the
  ///   operation's outcome is the run's outcome. The timer never fires after that.
  /// - If the timer fires first, the operation's task is cancelled, the run waits for the
  ///   operation to return, discards what it returned, and throws ``OperationTimeoutError``
  ///   carrying `duration`.
  /// - If the caller's task is cancelled, both are cancelled. The stopped timer does not count as
  ///   a timeout: the run ends with the operation's own outcome, normally `CancellationError`.
  /// - A duration of zero or less times out at once: the run throws ``OperationTimeoutError``
  ///   without calling the operation or the delayer.
  ///
  /// ```swift
  /// let request = Post.query(for: 1)
  ///   .timeout(after: .seconds(10))
  ///   .retry(limit: 3)  // Each attempt gets its own 10 seconds.
  /// ```
  ///
  /// The operation runs on the caller's isolation, as it would without the modifier.
  ///
  /// > Note: The modifier is available only when `Failure` is `any Error`, because the timeout
  /// > error must be thrown in place of the operation's own error. Give a typed operation this
  /// > `Failure` first (for example by wrapping it in a request that rethrows as `any Error`).
  ///
  /// > Important: The run returns only when the operation returns. An operation that ignores
  /// > cancellation keeps the run waiting after the timer fired, and the run then still throws
  /// > ``OperationTimeoutError``.
  ///
  /// - Parameter duration: How long the operation may take.
  /// - Returns: The modified operation.
  public func timeout(
    after duration: OperationDuration
  ) -> ModifiedOperation<Self, _TimeoutModifier<Self>> {
    self.modifier(_TimeoutModifier(duration: duration))
  }

  /// Fails a run with ``OperationTimeoutError`` when the operation takes longer than a Swift
  /// `Duration`.
  ///
  /// This is ``timeout(after:)-(OperationDuration)`` for a `Duration`.
  ///
  /// - Parameter duration: How long the operation may take.
  /// - Returns: The modified operation.
  @_disfavoredOverload
  public func timeout(after duration: Duration) -> ModifiedOperation<Self, _TimeoutModifier<Self>> {
    self.timeout(after: OperationDuration(duration: duration))
  }
}

// MARK: - OperationTimeoutError

/// The error of a run that took longer than its ``OperationRequest/timeout(after:)-(OperationDuration)``.
///
/// ```swift
/// do {
///   try await store.fetch()
/// } catch let error as OperationTimeoutError {
///   print(error)  // The operation timed out after 10.0 seconds.
/// }
/// ```
public struct OperationTimeoutError: Error, Hashable, Sendable, CustomStringConvertible {
  /// How long the run waited before it timed out.
  public let duration: OperationDuration

  /// Creates a timeout error.
  ///
  /// - Parameter duration: How long the run waited before it timed out.
  public init(duration: OperationDuration) {
    self.duration = duration
  }

  /// A sentence that says how long the run waited, such as
  /// `The operation timed out after 10.0 seconds.`
  public var description: String {
    "The operation timed out after \(self.duration)."
  }
}

// MARK: - _TimeoutModifier

/// The modifier behind ``OperationRequest/timeout(after:)-(OperationDuration)``.
public struct _TimeoutModifier<Operation: OperationRequest>: OperationModifier, Sendable
where Operation.Failure == any Error {
  let duration: OperationDuration

  /// Races the operation against a timer on the context's delayer.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws -> Operation.Value {
    guard self.duration > .zero else {
      throw OperationTimeoutError(duration: self.duration)
    }
    let work = TimeoutWork(operation: operation, context: context, continuation: continuation).race
    let delayer = context.operationDelayer
    let duration = self.duration
    let outcome = await withTaskGroup(of: TimeoutRaceEvent<Operation.Value>.self) { group in
      group.addTask { await work(isolation) }
      group.addTask {
        await timeoutTimer(delayer: delayer, duration: duration, valueType: Operation.Value.self)
      }
      var timedOut = false
      while let event = await group.next() {
        switch event {
        case .finished(let result):
          group.cancelAll()
          // NB: After the timer fired, the work's late outcome is discarded.
          return timedOut ? nil : result
        case .timerFired:
          timedOut = true
          group.cancelAll()
        case .timerStopped:
          break
        }
      }
      // NB: Unreachable: the work's child always reports `.finished`, which returns above.
      return nil
    }
    guard let outcome else {
      throw OperationTimeoutError(duration: duration)
    }
    return try outcome.get()
  }
}

/// Waits `duration` on `delayer` and reports whether the timer fired or was stopped.
private func timeoutTimer<Value>(
  delayer: any OperationDelayer & Sendable,
  duration: OperationDuration,
  valueType: Value.Type
) async -> TimeoutRaceEvent<Value> {
  do {
    try await delayer.delay(for: duration)
  } catch {
    return .timerStopped
  }
  // NB: A delayer that returns normally although its task was cancelled has not fired: the task
  // is cancelled only when the work finished or the caller cancelled.
  return Task.isCancelled ? .timerStopped : .timerFired
}

/// What one child of a timeout race reports to the parent.
private enum TimeoutRaceEvent<Value>: @unchecked Sendable {
  // NB: `.finished` carries the work's outcome from the work's child task to the parent, which
  // reads it once after `group.next()` returned it; the child never touches it after returning,
  // so the non-`Sendable` value has a single owner at every moment.
  case finished(Result<Value, any Error>)
  case timerFired
  case timerStopped
}

/// The run of an operation moved into a timeout race's child task.
private struct TimeoutWork<Operation: OperationRequest>: @unchecked Sendable
where Operation.Failure == any Error {
  // NB: The modifier moves the operation and its run's context here and runs it once, in the
  // race's work child, while the parent only waits on the task group; nothing else uses the
  // operation during the run. The run goes back to the caller's isolation, as an operation
  // without the modifier would run.
  let operation: Operation
  let context: OperationContext
  let continuation: OperationContinuation<Operation.Value, Operation.Failure>

  /// The run as a `Sendable` closure that captures no metatype of `Operation`.
  var race: @Sendable (isolated (any Actor)?) async -> TimeoutRaceEvent<Operation.Value> {
    let run: (isolated (any Actor)?) async -> TimeoutRaceEvent<Operation.Value> = {
      await self.run(isolation: $0)
    }
    // NB: `run` is a fresh closure that only the returned closure references, and it is called
    // once, by the race's work child.
    let transfer = UnsafeTransfer(value: run)
    return { await transfer.value($0) }
  }

  private func run(isolation: isolated (any Actor)?) async -> TimeoutRaceEvent<Operation.Value> {
    do {
      return .finished(
        .success(
          try await self.operation.run(
            isolation: isolation,
            in: self.context,
            with: self.continuation
          )
        )
      )
    } catch {
      return .finished(.failure(error))
    }
  }
}
