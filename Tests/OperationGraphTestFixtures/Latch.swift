import OperationCore
import OperationSynchronization
import OperationTestSupport

/// Counts arrivals and lets a test wait, without polling, until a number of them have come.
package final class Latch: Sendable {
  private struct State {
    var count = 0
    var waiters = [(count: Int, continuation: CheckedContinuation<Void, Never>)]()
  }

  private let state = Lock(State())

  package init() {}

  /// Records one arrival.
  package func arrive() {
    let ready = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.count += 1
      let count = state.count
      let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
      state.waiters.removeAll { $0.count <= count }
      return ready
    }
    for waiter in ready {
      waiter.resume()
    }
  }

  package var count: Int {
    self.state.withLock { $0.count }
  }

  /// Waits until at least `count` arrivals have come.
  package func wait(for count: Int) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let isReady = self.state.withLock { state -> Bool in
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

/// Suspends until the current task is cancelled.
package func suspendUntilCancelled() async {
  let gate = Gate()
  await withTaskCancellationHandler {
    await gate.wait()
  } onCancel: {
    gate.open()
  }
}
