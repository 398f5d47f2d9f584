import OperationSynchronization

/// Tasks that wait, each under an id, for a result that another task hands them: the line of a
/// ``Bulkhead``, the lookups of a ``BatchLoader``, the flushes of a PostgreSQL fleet.
///
/// An id is made first (``makeID()``), under whatever lock decides that its task waits, and waited
/// on after: a result that comes in between is kept for the wait, and so is a cancellation, so
/// no result is lost and no wait outlives its task. A cancelled wait throws `CancellationError`
/// at once, and ``resume(_:with:)`` tells its caller that the waiter was gone, so that a bulkhead
/// hands the slot to the next in line instead.
package final class Waiters<Value: Sendable>: Sendable {
  private enum Entry {
    /// Made, not waited on yet.
    case joining
    case waiting(CheckedContinuation<Value, any Error>)
    /// Handed a result before it waited.
    case resolved(Result<Value, any Error>)
    /// Cancelled before it waited.
    case cancelled
  }

  private struct State {
    var nextID = 0
    var entries = [Int: Entry]()
  }

  private let state = Lock(State())

  /// Creates an empty set of waiters.
  package init() {}

  /// The number of ids made and not yet handed a result or cancelled.
  package var count: Int {
    self.state.withLock { state in
      state.entries.values.count { entry in
        switch entry {
        case .joining, .waiting: true
        case .resolved, .cancelled: false
        }
      }
    }
  }

  /// Makes the id of a task that is about to wait.
  package func makeID() -> Int {
    self.state.withLock { state in
      defer { state.nextID += 1 }
      state.entries[state.nextID] = .joining
      return state.nextID
    }
  }

  /// Waits for the result of `id`.
  ///
  /// - Throws: The result's error, or `CancellationError` when the task is cancelled first.
  package func wait(_ id: Int) async throws -> Value {
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Value, any Error>) in
        let now = self.state.withLock { state -> Result<Value, any Error>? in
          switch state.entries[id] {
          case .resolved(let result):
            state.entries[id] = nil
            return result
          case .cancelled:
            state.entries[id] = nil
            return .failure(CancellationError())
          case .joining, .waiting, nil:
            state.entries[id] = .waiting(continuation)
            return nil
          }
        }
        if let now {
          continuation.resume(with: now)
        }
      }
    } onCancel: {
      let continuation = self.state.withLock { state -> CheckedContinuation<Value, any Error>? in
        switch state.entries[id] {
        case .joining:
          state.entries[id] = .cancelled
          return nil
        case .waiting(let continuation):
          state.entries[id] = nil
          return continuation
        case .resolved, .cancelled, nil:
          return nil
        }
      }
      continuation?.resume(throwing: CancellationError())
    }
  }

  /// Hands `result` to the task waiting under `id`.
  ///
  /// - Returns: Whether the task gets it: `false` when its wait was cancelled first.
  @discardableResult
  package func resume(_ id: Int, with result: Result<Value, any Error>) -> Bool {
    let continuation = self.state.withLock {
      state -> (CheckedContinuation<Value, any Error>?, Bool) in
      switch state.entries[id] {
      case .joining:
        state.entries[id] = .resolved(result)
        return (nil, true)
      case .waiting(let continuation):
        state.entries[id] = nil
        return (continuation, true)
      case .resolved, .cancelled, nil:
        return (nil, false)
      }
    }
    continuation.0?.resume(with: result)
    return continuation.1
  }
}
