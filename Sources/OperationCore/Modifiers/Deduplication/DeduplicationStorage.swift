import Synchronization

/// The runs in flight of one deduplicated operation in one store, and the callers waiting for
/// them.
///
/// A caller joins a run in flight that `isDuplicate` accepts, or starts a new one, and waits for
/// its result. Joining and registering the caller happen under one lock, so that a run's result
/// reaches every caller that joined it, exactly once.
///
/// It is a value whose copies share one lock, so that every store pays for one allocation.
struct DeduplicationStorage<Value: Sendable, Failure: Error>: Sendable {
  typealias Waiter = UnsafeContinuation<Result<Value, Failure>, Never>

  /// Whether a cancelled caller stops waiting, which it does when `Failure` can hold
  /// `CancellationError`.
  private let stopsWaitingOnCancellation: Bool

  /// The result of a cancelled caller, when `Failure` can hold `CancellationError`.
  private var cancellation: Result<Value, Failure>? {
    (CancellationError() as? Failure).map { .failure($0) }
  }

  private let state = Lock(State())

  private struct State {
    var runs = [SharedRunState]()
    var nextRunID = 0
  }

  /// One run in flight, the context it started with, and its waiting callers.
  private struct SharedRunState {
    let id: Int
    let context: OperationContext
    var task: Task<Void, Never>?
    var waiters: [(id: Int, continuation: Waiter)]
  }

  init() {
    // NB: Every store of a client makes one of these, so the common `any Error` is recognized
    // without a dynamic cast.
    self.stopsWaitingOnCancellation =
      Failure.self == (any Error).self || CancellationError() is Failure
  }

  /// Joins a run in flight that `isDuplicate` accepts, or starts one with `work`, and waits for
  /// its result.
  ///
  /// A caller that is cancelled stops waiting and gets a `CancellationError` when `Failure` can
  /// hold one; the run is cancelled once no caller waits for it. With a typed `Failure` that
  /// cannot hold `CancellationError`, a cancelled caller keeps waiting for the result.
  func wait(
    context: OperationContext,
    isDuplicate: @escaping @Sendable (OperationContext, OperationContext) -> Bool,
    work: @escaping @Sendable () async -> Result<Value, Failure>
  ) async -> Result<Value, Failure> {
    let waiter = nextDeduplicationWaiter.add(1, ordering: .relaxed).newValue
    guard self.stopsWaitingOnCancellation else {
      return await withUnsafeContinuation { continuation in
        self.join(waiter, continuation, context: context, isDuplicate: isDuplicate, work: work)
      }
    }
    return await withTaskCancellationHandler {
      await withUnsafeContinuation { continuation in
        self.join(waiter, continuation, context: context, isDuplicate: isDuplicate, work: work)
      }
    } onCancel: {
      self.cancel(waiter)
    }
  }

  private enum JoinOutcome {
    case joined
    case started(runID: Int)
    case cancelled(Result<Value, Failure>)
  }

  private func join(
    _ waiter: Int,
    _ continuation: Waiter,
    context: OperationContext,
    isDuplicate: (OperationContext, OperationContext) -> Bool,
    work: @escaping @Sendable () async -> Result<Value, Failure>
  ) {
    let outcome = self.state.withLock { state -> JoinOutcome in
      // NB: A caller cancelled before it joins has had its cancellation handler run already,
      // which found nothing to remove; it is answered here instead. The check is under the lock,
      // so a cancellation after it finds the caller registered.
      if self.stopsWaitingOnCancellation, Task.isCancelled, let cancellation = self.cancellation {
        return .cancelled(cancellation)
      }
      if let index = state.runs.firstIndex(where: { isDuplicate($0.context, context) }) {
        state.runs[index].waiters.append((waiter, continuation))
        return .joined
      }
      let runID = state.nextRunID
      state.nextRunID += 1
      state.runs.append(
        SharedRunState(id: runID, context: context, waiters: [(waiter, continuation)])
      )
      return .started(runID: runID)
    }
    switch outcome {
    case .joined:
      break
    case .cancelled(let cancellation):
      continuation.resume(returning: cancellation)
    case .started(let runID):
      self.start(runID, work: work)
    }
    context.deduplicationJoinObserver?()
  }

  private func start(_ runID: Int, work: @escaping @Sendable () async -> Result<Value, Failure>) {
    let task = Task {
      let result = await work()
      self.finish(runID, with: result)
    }
    let cancelNow = self.state.withLock { state in
      // NB: A run that is gone has finished already, or lost its last caller before its task
      // existed (see `cancel`); cancelling a finished task does nothing.
      guard let index = state.runs.firstIndex(where: { $0.id == runID }) else { return true }
      state.runs[index].task = task
      return state.runs[index].waiters.isEmpty
    }
    if cancelNow {
      task.cancel()
    }
  }

  private func finish(_ runID: Int, with result: Result<Value, Failure>) {
    let waiters = self.state.withLock { state -> [(id: Int, continuation: Waiter)] in
      guard let index = state.runs.firstIndex(where: { $0.id == runID }) else { return [] }
      return state.runs.remove(at: index).waiters
    }
    for waiter in waiters {
      waiter.continuation.resume(returning: result)
    }
  }

  private func cancel(_ waiter: Int) {
    guard self.stopsWaitingOnCancellation, let cancellation = self.cancellation else { return }
    let (continuation, task) = self.state.withLock { state -> (Waiter?, Task<Void, Never>?) in
      for runIndex in state.runs.indices {
        guard
          let index = state.runs[runIndex].waiters.firstIndex(where: { $0.id == waiter })
        else { continue }
        let continuation = state.runs[runIndex].waiters.remove(at: index).continuation
        guard state.runs[runIndex].waiters.isEmpty else { return (continuation, nil) }
        // NB: The run lost its last caller, so it is cancelled, and it leaves the runs that
        // callers can join: a caller that comes later starts a run of its own instead of
        // joining one that ends in `CancellationError`.
        return (continuation, state.runs.remove(at: runIndex).task)
      }
      // NB: The caller has its result already, or has not joined yet (see `join`).
      return (nil, nil)
    }
    continuation?.resume(returning: cancellation)
    task?.cancel()
  }
}

/// Identifies the callers waiting for deduplicated runs, across every store.
private let nextDeduplicationWaiter = Atomic<Int>(0)
