public import OperationCore
import OperationSynchronization

/// A delayer whose delays last until a test ends them.
///
/// Every call to ``delay(for:)`` records its duration and then suspends until the test calls
/// ``resumeNext()`` or ``resumeAll()``, or until the waiting task is cancelled. Use it to decide
/// exactly when a timer fires relative to the work it races, without sleeping:
///
/// ```swift
/// let delayer = ManualDelayer()
/// let runner = OperationRunner(
///   operation: SlowQuery().timeout(after: .seconds(5)).delayer(delayer)
/// )
/// let task = Task { try await runner.run() }
/// await delayer.waitForDelays(count: 1)  // The timer is waiting now.
/// delayer.resumeAll()  // The timer fires.
/// await #expect(throws: OperationTimeoutError(duration: .seconds(5))) {
///   try await task.value
/// }
/// ```
///
/// A cancelled delay throws `CancellationError` at once and no longer counts as pending.
public final class ManualDelayer: OperationDelayer, Sendable {
  private struct Waiter {
    let id: Int
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var nextID = 0
    /// Delays that started but have not registered their continuation yet.
    var unregistered = Set<Int>()
    /// Unregistered delays whose task was cancelled before they registered.
    var cancelledBeforeRegistering = Set<Int>()
    var requested = [OperationDuration]()
    var pending = [Waiter]()
    var cancelledCount = 0
    var requestWaiters = [(count: Int, continuation: CheckedContinuation<Void, Never>)]()
  }

  private let state = Lock(State())

  /// Creates a delayer that has no delays.
  public init() {}

  /// Every duration requested so far, in the order of the requests.
  public var delays: [OperationDuration] {
    self.state.withLock { $0.requested }
  }

  /// The number of delays that are waiting to be resumed.
  public var pendingCount: Int {
    self.state.withLock { $0.pending.count }
  }

  /// The number of delays that ended because their task was cancelled.
  public var cancelledCount: Int {
    self.state.withLock { $0.cancelledCount }
  }

  /// Suspends until at least `count` delays have been requested in total.
  ///
  /// A delay counts as requested once it is waiting, so after this returns, ``resumeNext()``
  /// ends it (unless its task was cancelled meanwhile).
  ///
  /// - Parameter count: The number of requests to wait for.
  public func waitForDelays(count: Int) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let isReady = self.state.withLock { state -> Bool in
        guard state.requested.count < count else { return true }
        state.requestWaiters.append((count, continuation))
        return false
      }
      if isReady {
        continuation.resume()
      }
    }
  }

  /// Ends the oldest pending delay, which then returns normally.
  ///
  /// - Returns: Whether a delay was pending.
  @discardableResult
  public func resumeNext() -> Bool {
    let waiter = self.state.withLock { state -> Waiter? in
      state.pending.isEmpty ? nil : state.pending.removeFirst()
    }
    waiter?.continuation.resume()
    return waiter != nil
  }

  /// Ends every pending delay, which then return normally.
  ///
  /// - Returns: The number of delays that were pending.
  @discardableResult
  public func resumeAll() -> Int {
    let waiters = self.state.withLock { state -> [Waiter] in
      defer { state.pending.removeAll() }
      return state.pending
    }
    for waiter in waiters {
      waiter.continuation.resume()
    }
    return waiters.count
  }

  /// Records `duration` and suspends until a test resumes this delay.
  ///
  /// - Parameter duration: The duration to record.
  /// - Throws: `CancellationError` when the waiting task is cancelled.
  public func delay(for duration: OperationDuration) async throws {
    let id = self.state.withLock { state -> Int in
      defer { state.nextID += 1 }
      state.unregistered.insert(state.nextID)
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        let (isCancelled, ready) = self.state.withLock {
          state -> (Bool, [CheckedContinuation<Void, Never>]) in
          state.unregistered.remove(id)
          state.requested.append(duration)
          let isCancelled = state.cancelledBeforeRegistering.remove(id) != nil
          if isCancelled {
            state.cancelledCount += 1
          } else {
            state.pending.append(Waiter(id: id, continuation: continuation))
          }
          let requestedCount = state.requested.count
          let ready = state.requestWaiters.filter { $0.count <= requestedCount }.map(\.continuation)
          state.requestWaiters.removeAll { $0.count <= requestedCount }
          return (isCancelled, ready)
        }
        // NB: Continuations resume after the lock is released.
        for waiter in ready {
          waiter.resume()
        }
        if isCancelled {
          continuation.resume(throwing: CancellationError())
        }
      }
    } onCancel: {
      let waiter = self.state.withLock { state -> Waiter? in
        if let index = state.pending.firstIndex(where: { $0.id == id }) {
          state.cancelledCount += 1
          return state.pending.remove(at: index)
        }
        if state.unregistered.contains(id) {
          state.cancelledBeforeRegistering.insert(id)
        }
        return nil
      }
      waiter?.continuation.resume(throwing: CancellationError())
    }
  }
}
