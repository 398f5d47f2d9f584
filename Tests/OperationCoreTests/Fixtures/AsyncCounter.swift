import OperationCore
import OperationSynchronization

/// A thread-safe count that a test can wait on until it reaches a number.
final class AsyncCounter: Sendable {
  private struct State {
    var count = 0
    var waiters = [(count: Int, continuation: CheckedContinuation<Void, Never>)]()
  }

  private let state = Lock(State())

  /// The count now.
  var value: Int {
    self.state.withLock { $0.count }
  }

  /// Adds one, resuming the waiters whose number is reached.
  func increment() {
    let ready = self.state.withLock { state in
      state.count += 1
      let count = state.count
      let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
      state.waiters.removeAll { $0.count <= count }
      return ready
    }
    for continuation in ready {
      continuation.resume()
    }
  }

  /// Suspends until the count is at least `count`.
  func wait(for count: Int) async {
    await withCheckedContinuation { continuation in
      let isReady = self.state.withLock { state in
        guard state.count < count else { return true }
        state.waiters.append((count, continuation))
        return false
      }
      if isReady {
        continuation.resume()
      }
    }
  }
}
