import OperationCore

/// A `Clock` whose time moves only when a test calls `advance(by:)`.
///
/// Sleepers wait until the clock reaches their deadline or their task is cancelled.
/// `waitForSleepers(count:)` suspends until exactly `count` tasks sleep on the clock, so a test can
/// tell that polling code has finished one round and gone back to sleep without yielding or
/// sleeping itself.
final class SteppingClock: Clock, Sendable {
  struct Instant: InstantProtocol {
    var offset: Duration

    func advanced(by duration: Duration) -> Self {
      Self(offset: self.offset + duration)
    }

    func duration(to other: Self) -> Duration {
      other.offset - self.offset
    }

    static func < (lhs: Self, rhs: Self) -> Bool {
      lhs.offset < rhs.offset
    }
  }

  private struct Sleeper {
    let id: Int
    let deadline: Instant
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct Waiter {
    let count: Int
    let continuation: CheckedContinuation<Void, Never>
  }

  private struct State {
    var now = Instant(offset: .zero)
    var sleepers = [Sleeper]()
    /// Sleeps whose task was cancelled before they registered.
    var cancelledIDs = Set<Int>()
    var nextID = 0
    var waiters = [Waiter]()

    mutating func takeSatisfiedWaiters() -> [Waiter] {
      let count = self.sleepers.count
      let satisfied = self.waiters.filter { $0.count == count }
      self.waiters.removeAll { $0.count == count }
      return satisfied
    }
  }

  private let state = Lock(State())

  var now: Instant {
    self.state.withLock { $0.now }
  }

  var minimumResolution: Duration {
    .zero
  }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    let id = self.state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        enum Outcome {
          case cancelled
          case due
          case sleeping([Waiter])
        }
        let outcome = self.state.withLock { state -> Outcome in
          if state.cancelledIDs.remove(id) != nil {
            return .cancelled
          }
          if deadline <= state.now {
            return .due
          }
          state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
          return .sleeping(state.takeSatisfiedWaiters())
        }
        switch outcome {
        case .cancelled:
          continuation.resume(throwing: CancellationError())
        case .due:
          continuation.resume()
        case .sleeping(let waiters):
          for waiter in waiters {
            waiter.continuation.resume()
          }
        }
      }
    } onCancel: {
      let (sleeper, waiters) = self.state.withLock { state -> (Sleeper?, [Waiter]) in
        guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
          state.cancelledIDs.insert(id)
          return (nil, [])
        }
        let sleeper = state.sleepers.remove(at: index)
        return (sleeper, state.takeSatisfiedWaiters())
      }
      sleeper?.continuation.resume(throwing: CancellationError())
      for waiter in waiters {
        waiter.continuation.resume()
      }
    }
  }

  /// Moves time forward and wakes the sleepers whose deadline has come.
  func advance(by duration: Duration) {
    let (due, waiters) = self.state.withLock { state -> ([Sleeper], [Waiter]) in
      state.now = state.now.advanced(by: duration)
      let now = state.now
      let due = state.sleepers.filter { $0.deadline <= now }
      state.sleepers.removeAll { $0.deadline <= now }
      return (due, state.takeSatisfiedWaiters())
    }
    for sleeper in due {
      sleeper.continuation.resume()
    }
    for waiter in waiters {
      waiter.continuation.resume()
    }
  }

  /// Suspends until exactly `count` tasks sleep on the clock.
  func waitForSleepers(count: Int) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let isSatisfied = self.state.withLock { state in
        guard state.sleepers.count != count else { return true }
        state.waiters.append(Waiter(count: count, continuation: continuation))
        return false
      }
      if isSatisfied {
        continuation.resume()
      }
    }
  }
}
