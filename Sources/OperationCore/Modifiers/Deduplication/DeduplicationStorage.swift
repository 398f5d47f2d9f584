import OperationSynchronization
import Synchronization

/// The runs in flight of one deduplicated operation in one store, and the callers waiting for
/// them.
///
/// A thin shell around a ``DeduplicationStateMachine``: each event takes the lock, lets the
/// machine decide, and performs the machine's action after the lock is released. The caller's
/// predicate runs with no lock held: the caller looks at one candidate run at a time under the
/// lock, calls the predicate outside it, and joins its choice under the lock only if that run is
/// still joinable (the machine tells it to look again when runs started meanwhile).
///
/// It is a value whose copies share one lock, so that every store pays for one allocation.
struct DeduplicationStorage: Sendable {
  // NB: The storage keeps its runs' results erased, so that neither it nor its state machine
  // depends on the operation's value and failure types: the modifier runs in unspecialized
  // generic code, where every generic type it touches (a `Result<Value, Failure>`, a storage
  // generic over them) cost a metadata lookup, four per run. Each caller casts its value back
  // once.
  /// The result of a run, as its callers receive it.
  typealias Outcome = Result<any Sendable, any Error>
  typealias Waiter = UnsafeContinuation<Outcome, Never>
  typealias StateMachine = DeduplicationStateMachine<OperationContext, Waiter, Task<Void, Never>>

  /// Whether a cancelled caller stops waiting, which it does when `Failure` can hold
  /// `CancellationError`.
  private let stopsWaitingOnCancellation: Bool

  private let state: Lock<StateMachine>

  /// Tells this storage from the storages of other stores and modifiers.
  let id = nextDeduplicationStorage.add(1, ordering: .relaxed).newValue

  /// Creates the storage of an operation whose errors are of type `failure`.
  init<Failure: Error>(failure: Failure.Type) {
    // NB: Every store of a client makes one of these, so the common `any Error` is recognized
    // without a dynamic cast.
    let stopsWaitingOnCancellation =
      Failure.self == (any Error).self || CancellationError() is Failure
    self.stopsWaitingOnCancellation = stopsWaitingOnCancellation
    self.state = Lock(StateMachine(stopsWaitingOnCancellation: stopsWaitingOnCancellation))
  }

  /// The result of a cancelled caller; only asked for when the operation's failure type can hold
  /// `CancellationError` (see `stopsWaitingOnCancellation`), so the caller's cast succeeds.
  private var cancellation: Outcome {
    .failure(CancellationError())
  }

  /// Joins a run in flight that `isDuplicate` accepts, or starts one with `startRun`, and waits
  /// for its result.
  ///
  /// A caller that is cancelled stops waiting and gets a `CancellationError` when `Failure` can
  /// hold one; the run is cancelled once no caller waits for it. With a typed `Failure` that
  /// cannot hold `CancellationError`, a cancelled caller keeps waiting for the result.
  ///
  /// - Parameters:
  ///   - isolation: The actor of the caller, on which `startRun` is called.
  ///   - context: The caller's context.
  ///   - isDuplicate: Whether the caller may join a run that started with the first context; it
  ///     is called with no lock held.
  ///   - startRun: Creates the task of a new run, which passes its result to `finish`.
  /// - Returns: The result of the run that the caller joined or started.
  func wait(
    isolation: isolated (any Actor)?,
    context: OperationContext,
    isDuplicate: (OperationContext, OperationContext) -> Bool,
    startRun: (_ finish: @escaping @Sendable (Outcome) -> Void) -> Task<Void, Never>
  ) async -> Outcome {
    let waiter = nextDeduplicationWaiter.add(1, ordering: .relaxed).newValue
    guard self.stopsWaitingOnCancellation else {
      return await withUnsafeContinuation(isolation: isolation) { continuation in
        self.join(
          waiter,
          continuation,
          context: context,
          isDuplicate: isDuplicate,
          startRun: startRun
        )
      }
    }
    return await withTaskCancellationHandler {
      await withUnsafeContinuation(isolation: isolation) { continuation in
        self.join(
          waiter,
          continuation,
          context: context,
          isDuplicate: isDuplicate,
          startRun: startRun
        )
      }
    } onCancel: {
      self.cancel(waiter)
    }
  }

  private func join(
    _ waiter: Int,
    _ continuation: Waiter,
    context: OperationContext,
    isDuplicate: (OperationContext, OperationContext) -> Bool,
    startRun: (_ finish: @escaping @Sendable (Outcome) -> Void) -> Task<Void, Never>
  ) {
    var horizon = 0
    // NB: A run of a store never joins a run that the store started before its latest
    // invalidation: the store refuses that run's result, so joining it would fetch nothing new.
    let order = context.storeRunOrder
    while true {
      var choice: Int?
      while let candidate = self.state.withLock({ $0.candidate(from: horizon) }) {
        horizon = candidate.id + 1
        if let order, let other = candidate.context.storeRunOrder, !order.mayJoin(other) {
          continue
        }
        if isDuplicate(candidate.context, context) {
          choice = candidate.id
          break
        }
      }
      let action = self.state.withLock { [horizon] state in
        state.join(
          waiter,
          continuation,
          context: context,
          choosing: choice,
          consideredBefore: horizon,
          isCancelled: Task.isCancelled
        )
      }
      switch action {
      case .wait:
        context.deduplicationJoinObserver?(.joined)
        context.record(.joinedRunInFlight)
      case .startRun(let run):
        self.start(run, startRun: startRun)
        context.deduplicationJoinObserver?(.started)
      case .resumeCancelled(let continuation):
        continuation.resume(returning: self.cancellation)
        context.deduplicationJoinObserver?(.cancelledBeforeJoining)
      case .reconsider(let from):
        horizon = from
        continue
      }
      return
    }
  }

  private func start(
    _ run: Int,
    startRun: (_ finish: @escaping @Sendable (Outcome) -> Void) -> Task<Void, Never>
  ) {
    let task = startRun { result in self.finish(run, with: result) }
    let action = self.state.withLock { $0.taskCreated(task, for: run) }
    switch action {
    case .none: break
    case .cancel(let task): task.cancel()
    }
  }

  private func finish(_ run: Int, with outcome: Outcome) {
    let waiters = self.state.withLock { $0.finish(run) }
    for waiter in waiters {
      waiter.resume(returning: outcome)
    }
  }

  private func cancel(_ waiter: Int) {
    let action = self.state.withLock { $0.cancel(waiter) }
    switch action {
    case .none:
      break
    case .resumeCancelled(let continuation):
      continuation.resume(returning: self.cancellation)
    case .resumeCancelledAndCancelRun(let continuation, let task):
      continuation.resume(returning: self.cancellation)
      task.cancel()
    }
  }
}

extension DeduplicationStorage {
  /// Whether some thread holds the storage's lock now.
  var isLocked: Bool { self.state.isLocked }
}

/// Identifies the storages of deduplicated operations, across every store.
private let nextDeduplicationStorage = Atomic<Int>(0)

/// Identifies the callers waiting for deduplicated runs, across every store.
private let nextDeduplicationWaiter = Atomic<Int>(0)
