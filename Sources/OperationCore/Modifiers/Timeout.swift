import OperationSynchronization

extension OperationRequest where Failure == any Error {
  /// Fails a run with ``OperationTimeoutError`` when the operation takes longer than a duration.
  ///
  /// Each run races the operation against a timer that waits on the context's
  /// ``OperationContext/operationDelayer``:
  ///
  /// - If the operation finishes first (with a value or an error), the timer is cancelled and the
  ///   operation's outcome is the run's outcome. The timer never fires after that.
  /// - If the timer fires first, the run throws ``OperationTimeoutError`` carrying `duration` at
  ///   once, and the operation's task is cancelled. The abandoned work goes on in the background
  ///   until it returns, and what it returns is discarded. Work that ignores cancellation (a stuck
  ///   await) therefore no longer holds up the caller.
  /// - With `waitsForCancelledWork: true`, the run instead waits for the cancelled operation to
  ///   return before it throws ``OperationTimeoutError``, so nothing of the run outlives it; work
  ///   that ignores cancellation then keeps the caller waiting.
  /// - Either way, what the work yields to its continuation from the moment the timer fires is
  ///   dropped, so a store never hears from a run that timed out.
  /// - If the caller's task is cancelled, the operation and the timer are cancelled and the run
  ///   waits for the operation: the stopped timer does not count as a timeout, and the run ends
  ///   with the operation's own outcome, normally `CancellationError`.
  /// - A duration of zero or less times out at once: the run throws ``OperationTimeoutError``
  ///   without calling the operation or the delayer.
  ///
  /// ```swift
  /// let request = Post.query(for: 1)
  ///   .timeout(after: .seconds(10))
  ///   .retry(limit: 3)  // Each attempt gets its own 10 seconds.
  /// ```
  ///
  /// The operation runs on the caller's isolation (the actor passed to the run as `isolation`),
  /// as it would without the modifier, and so does abandoned work: a store that serialises an
  /// operation on an actor keeps serialising it after a timeout.
  ///
  /// > Note: The modifier is available only when `Failure` is `any Error`, because the timeout
  /// > error must be thrown in place of the operation's own error. Give a typed operation this
  /// > `Failure` first (for example by wrapping it in a request that rethrows as `any Error`).
  ///
  /// > Important: Abandoned work still runs, on the caller's actor if it has one, until it
  /// > returns. Work that blocks its thread (rather than suspending) on that actor keeps the actor
  /// > busy, and no timeout can help there.
  ///
  /// - Parameters:
  ///   - duration: How long the operation may take.
  ///   - waitsForCancelledWork: Whether a timed-out run waits for the cancelled operation to return
  ///     before it throws; `false` (the default) throws at the deadline.
  /// - Returns: The modified operation.
  public func timeout(
    after duration: OperationDuration,
    waitsForCancelledWork: Bool = false
  ) -> ModifiedOperation<Self, _TimeoutModifier<Self>> {
    self.modifier(
      _TimeoutModifier(duration: duration, waitsForCancelledWork: waitsForCancelledWork)
    )
  }

  /// Fails a run with ``OperationTimeoutError`` when the operation takes longer than a Swift
  /// `Duration`.
  ///
  /// This is ``timeout(after:waitsForCancelledWork:)-(OperationDuration,_)`` for a `Duration`.
  ///
  /// - Parameters:
  ///   - duration: How long the operation may take.
  ///   - waitsForCancelledWork: Whether a timed-out run waits for the cancelled operation to return
  ///     before it throws; `false` (the default) throws at the deadline.
  /// - Returns: The modified operation.
  @_disfavoredOverload
  public func timeout(
    after duration: Duration,
    waitsForCancelledWork: Bool = false
  ) -> ModifiedOperation<Self, _TimeoutModifier<Self>> {
    self.timeout(
      after: OperationDuration(duration: duration),
      waitsForCancelledWork: waitsForCancelledWork
    )
  }
}

// MARK: - OperationTimeoutError

/// The error of a run that took longer than its ``OperationRequest/timeout(after:waitsForCancelledWork:)-(OperationDuration,_)``.
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

/// The modifier behind ``OperationRequest/timeout(after:waitsForCancelledWork:)-(OperationDuration,_)``.
public struct _TimeoutModifier<Operation: OperationRequest>: OperationModifier, Sendable
where Operation.Failure == any Error {
  let duration: OperationDuration
  let waitsForCancelledWork: Bool

  /// Races the operation against a timer on the context's delayer.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws -> Operation.Value {
    guard self.duration > .zero else {
      context.record(.timedOut)
      throw OperationTimeoutError(duration: self.duration)
    }
    let race = TimeoutRace(waitsForCancelledWork: self.waitsForCancelledWork)
    let outcome = TimeoutWorkOutcome<Operation.Value>()
    let delayer = context.operationDelayer
    let duration = self.duration
    // NB: The timer's closure does not use `isolation`, so it does not inherit it: the timer runs
    // off the caller's actor and fires even while work keeps that actor busy.
    let timer = Task {
      await race.timerEnded(fired: timeoutTimerFires(delayer: delayer, duration: duration))
    }
    let forwarding = OperationContinuation<Operation.Value, Operation.Failure> { result, context in
      guard race.forwardsYields else { return }
      continuation.yield(with: result, using: context)
    }
    // NB: The work runs in a task of its own, not a child task, so that a timed-out run can
    // return while the work goes on. The task's closure uses `isolation`, so it inherits that
    // isolation: it starts on the caller's actor (when there is one) and runs the operation there,
    // which is why it may capture the operation and `outcome`, which are not `Sendable`, without
    // any unchecked transfer. A store runs an operation that is not `Sendable` on an actor of its
    // own, so the abandoned work stays serialised with the store's other runs of it.
    let work = Task {
      let result: Result<Operation.Value, any Error>
      do {
        result = .success(
          try await operation.run(isolation: isolation, in: context, with: forwarding)
        )
      } catch {
        result = .failure(error)
      }
      outcome.result = result
      race.workFinished()
    }
    race.attach(work: work, timer: timer)
    let decision = await withTaskCancellationHandler {
      await withCheckedContinuation(isolation: isolation) {
        (waiter: CheckedContinuation<TimeoutRaceDecision, Never>) in
        race.wait(with: waiter)
      }
    } onCancel: {
      race.callerCancelled()
    }
    switch decision {
    case .timedOut:
      context.record(.timedOut)
      throw OperationTimeoutError(duration: duration)
    case .workFinished:
      // NB: The work task stored its result before it told the race it finished, and the race
      // resumed this run only after that, under its lock.
      guard let result = outcome.result.take() else {
        preconditionFailure("A timeout race decided for the work before the work finished.")
      }
      return try result.get()
    }
  }
}

/// Where the work of a timeout race leaves its result for the run that waits for it.
///
/// Not `Sendable`: it is used only by the run and its work task, which share the run's isolation
/// (see ``_TimeoutModifier/run(isolation:in:using:with:)``).
private final class TimeoutWorkOutcome<Value> {
  var result: Result<Value, any Error>?
}

/// Waits `duration` on `delayer` and says whether the timer fired, rather than being stopped.
private func timeoutTimerFires(
  delayer: any OperationDelayer & Sendable,
  duration: OperationDuration
) async -> Bool {
  do {
    try await delayer.delay(for: duration)
  } catch {
    return false
  }
  // NB: A delayer that returns normally although its task was cancelled has not fired: the timer
  // is cancelled only when the work finished or the caller cancelled.
  return !Task.isCancelled
}

// MARK: - TimeoutRace

/// Decides a timeout race between a run's work and its timer, and wakes the run that waits.
///
/// The decisions are made by ``TimeoutRaceState`` under a lock; cancelling tasks and resuming the
/// waiting run happen after the lock is released.
final class TimeoutRace: Sendable {
  typealias State = TimeoutRaceState<
    CheckedContinuation<TimeoutRaceDecision, Never>, Task<Void, Never>
  >

  private let state: Lock<State>

  init(waitsForCancelledWork: Bool) {
    self.state = Lock(State(waitsForCancelledWork: waitsForCancelledWork))
  }

  /// Whether the work's yields still reach the run's continuation: until the timer fires.
  var forwardsYields: Bool {
    self.state.withLock { !$0.hasTimerFired }
  }

  func attach(work: Task<Void, Never>, timer: Task<Void, Never>) {
    Self.perform(self.state.withLock { $0.attach(work: work, timer: timer) })
  }

  func wait(with waiter: CheckedContinuation<TimeoutRaceDecision, Never>) {
    Self.perform(self.state.withLock { $0.wait(with: waiter) })
  }

  func workFinished() {
    Self.perform(self.state.withLock { $0.workFinished() })
  }

  func timerEnded(fired: Bool) {
    Self.perform(self.state.withLock { $0.timerEnded(fired: fired) })
  }

  func callerCancelled() {
    Self.perform(self.state.withLock { $0.callerCancelled() })
  }

  private static func perform(_ effects: State.Effects) {
    for task in effects.cancel {
      task.cancel()
    }
    if let (waiter, decision) = effects.resume {
      waiter.resume(returning: decision)
    }
  }
}

/// How a timeout race ends.
package enum TimeoutRaceDecision: Sendable, Equatable {
  /// The work finished in time (or the caller cancelled): the run returns the work's outcome.
  case workFinished
  /// The timer fired first: the run throws ``OperationTimeoutError``.
  case timedOut
}

/// The state of a timeout race: a pure value whose events return the effects to perform.
///
/// Generic over the waiting run's continuation and the tasks' handles, and `package`, so that
/// tests drive it synchronously with plain values, without tasks or timers.
package struct TimeoutRaceState<Waiter, TaskHandle> {
  /// What to do once the lock is released: cancel tasks, then wake the waiting run.
  package struct Effects {
    /// The tasks to cancel, before the run is woken.
    package var cancel = [TaskHandle]()
    /// The run to wake, and how it ends.
    package var resume: (Waiter, TimeoutRaceDecision)?
  }

  /// Whether a timed-out run waits for its cancelled work before it throws.
  package let waitsForCancelledWork: Bool
  /// How the run ends, once decided.
  package private(set) var decision: TimeoutRaceDecision?
  /// Whether the work returned.
  package private(set) var hasWorkFinished = false
  /// Whether the timer fired before the work finished and before the caller cancelled.
  package private(set) var hasTimerFired = false
  /// Whether the caller's task was cancelled.
  package private(set) var isCallerCancelled = false
  /// Whether the work's task must be cancelled, even if it is not attached yet.
  private var cancelsWork = false
  /// Whether the timer's task must be cancelled, even if it is not attached yet.
  private var cancelsTimer = false
  private var work: TaskHandle?
  private var timer: TaskHandle?
  private var waiter: Waiter?

  /// A race that has not started.
  package init(waitsForCancelledWork: Bool) {
    self.waitsForCancelledWork = waitsForCancelledWork
  }

  /// The tasks of the work and the timer are known.
  package mutating func attach(work: TaskHandle, timer: TaskHandle) -> Effects {
    self.work = work
    self.timer = timer
    return self.effects()
  }

  /// The run waits for the decision.
  package mutating func wait(with waiter: Waiter) -> Effects {
    self.waiter = waiter
    return self.effects()
  }

  /// The work returned, with a value or an error.
  package mutating func workFinished() -> Effects {
    self.hasWorkFinished = true
    if self.decision == nil {
      // NB: A strict run whose timer fired was waiting for this to throw the timeout.
      self.decision = self.hasTimerFired ? .timedOut : .workFinished
      self.cancelsTimer = true
    }
    return self.effects()
  }

  /// The timer ended: it fired, or it was stopped.
  package mutating func timerEnded(fired: Bool) -> Effects {
    guard fired, self.decision == nil, !self.hasWorkFinished, !self.isCallerCancelled,
      !self.hasTimerFired
    else { return Effects() }
    self.hasTimerFired = true
    self.cancelsWork = true
    if !self.waitsForCancelledWork {
      self.decision = .timedOut
    }
    return self.effects()
  }

  /// The caller's task was cancelled: stop both, and wait for the work's own outcome.
  package mutating func callerCancelled() -> Effects {
    self.isCallerCancelled = true
    guard self.decision == nil else { return Effects() }
    self.cancelsWork = true
    self.cancelsTimer = true
    return self.effects()
  }

  /// The cancellations that are due and not done yet, and the wake-up of a decided run.
  private mutating func effects() -> Effects {
    var effects = Effects()
    if self.cancelsWork, let work = self.work.take() {
      effects.cancel.append(work)
    }
    if self.cancelsTimer, let timer = self.timer.take() {
      effects.cancel.append(timer)
    }
    if let decision = self.decision, let waiter = self.waiter.take() {
      effects.resume = (waiter, decision)
    }
    return effects
  }
}

extension TimeoutRaceState: Sendable where Waiter: Sendable, TaskHandle: Sendable {}
extension TimeoutRaceState.Effects: Sendable where Waiter: Sendable, TaskHandle: Sendable {}
