import OperationCore

/// A `Clock` whose time moves only when a test advances it.
///
/// Sleepers wait until ``advance(by:)`` moves `now` past their deadline. ``waitForSleeps(count:)``
/// is the handshake that replaces yielding: it returns once `count` sleeps have started in total,
/// so a test knows the code under test has reached its next sleep.
final class TestClock: Clock, Sendable {
  struct Instant: InstantProtocol, Hashable {
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
    let deadline: Instant
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var now = Instant(offset: .zero)
    var nextID = 0
    var sleepers = [Int: Sleeper]()
    var cancelledIDs = Set<Int>()
    var sleepCount = 0
    var countWaiters = [(count: Int, continuation: CheckedContinuation<Void, Never>)]()

    mutating func takeSatisfiedCountWaiters() -> [CheckedContinuation<Void, Never>] {
      let ready = self.countWaiters.filter { $0.count <= self.sleepCount }
      self.countWaiters.removeAll { $0.count <= self.sleepCount }
      return ready.map(\.continuation)
    }
  }

  private let state = Lock(State())

  var now: Instant {
    self.state.withLock { $0.now }
  }

  var minimumResolution: Duration {
    .zero
  }

  /// The number of sleeps that have started.
  var sleepCount: Int {
    self.state.withLock { $0.sleepCount }
  }

  /// The number of sleeps waiting for their deadline.
  var pendingSleeperCount: Int {
    self.state.withLock { $0.sleepers.count }
  }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    let id = self.state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        let (immediate, waiters) = self.state.withLock {
          state -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
          if state.cancelledIDs.remove(id) != nil {
            return (.failure(CancellationError()), [])
          }
          state.sleepCount += 1
          let waiters = state.takeSatisfiedCountWaiters()
          if deadline <= state.now {
            return (.success(()), waiters)
          }
          state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
          return (nil, waiters)
        }
        for waiter in waiters {
          waiter.resume()
        }
        if let immediate {
          continuation.resume(with: immediate)
        }
      }
    } onCancel: {
      let continuation = self.state.withLock { state in
        guard let sleeper = state.sleepers.removeValue(forKey: id) else {
          state.cancelledIDs.insert(id)
          return CheckedContinuation<Void, any Error>?.none
        }
        return sleeper.continuation
      }
      continuation?.resume(throwing: CancellationError())
    }
  }

  /// Moves `now` forward and wakes every sleeper whose deadline has passed.
  func advance(by duration: Duration) {
    let woken = self.state.withLock { state in
      state.now = state.now.advanced(by: duration)
      let now = state.now
      let due = state.sleepers.filter { $0.value.deadline <= now }
      for id in due.keys {
        state.sleepers.removeValue(forKey: id)
      }
      return due.values.map(\.continuation)
    }
    for continuation in woken {
      continuation.resume()
    }
  }

  /// Returns once `count` sleeps have started in total.
  func waitForSleeps(count: Int) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let isReady = self.state.withLock { state in
        guard state.sleepCount < count else { return true }
        state.countWaiters.append((count, continuation))
        return false
      }
      if isReady {
        continuation.resume()
      }
    }
  }
}
