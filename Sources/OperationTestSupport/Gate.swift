import OperationSynchronization

/// A one-shot gate that holds asynchronous work until a test opens it.
///
/// Use a gate to stop an operation mid-flight, check what the store looks like while it runs,
/// and then let it finish, without sleeping or yielding:
///
/// ```swift
/// let started = Gate()
/// let release = Gate()
/// let task = Task {
///   started.open()
///   await release.wait()
///   return 1
/// }
/// await started.wait()  // The task is running now.
/// release.open()
/// #expect(await task.value == 1)
/// ```
///
/// Once open, a gate stays open: every later ``wait()`` returns at once.
///
/// > Important: ``wait()`` does not return early when its task is cancelled. Work that should
/// > honour cancellation checks for it after the gate opens.
public final class Gate: Sendable {
  private enum State {
    case closed([CheckedContinuation<Void, Never>])
    case open
  }

  private let state = Lock(State.closed([]))

  /// Creates a closed gate.
  public init() {}

  /// Whether the gate has been opened.
  public var isOpen: Bool {
    self.state.withLock { state in
      if case .open = state { return true }
      return false
    }
  }

  /// Opens the gate, resuming every waiter; opening an open gate does nothing.
  public func open() {
    let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
      guard case .closed(let waiters) = state else { return [] }
      state = .open
      return waiters
    }
    // NB: Waiters resume after the lock is released, so that a resumed task that touches the gate
    // again cannot contend with this call.
    for waiter in waiters {
      waiter.resume()
    }
  }

  /// Suspends until the gate is open; returns at once when it already is.
  public func wait() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let isOpen = self.state.withLock { state -> Bool in
        switch state {
        case .closed(var waiters):
          waiters.append(continuation)
          state = .closed(waiters)
          return false
        case .open:
          return true
        }
      }
      if isOpen {
        continuation.resume()
      }
    }
  }
}
