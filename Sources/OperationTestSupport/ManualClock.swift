import OperationCore
import OperationSynchronization

/// A `Clock` whose time moves only when a test calls ``advance(by:)``.
///
/// Code under test that sleeps on this clock (a poller, a timeout, a stale-time check) waits until
/// the test moves time past its deadline, or until its task is cancelled; nothing waits for real
/// time. Two handshakes tell a test that the code under test has reached its next sleep, so that
/// it never yields or sleeps itself:
///
/// - ``waitForSleeps(count:)`` returns once `count` sleeps have started in total;
/// - ``waitForSleepers(count:)`` returns once exactly `count` tasks are sleeping.
///
/// ```swift
/// let clock = ManualClock()
/// let task = Task { try await clock.sleep(for: .seconds(5)) }
/// await clock.waitForSleepers(count: 1)
/// clock.advance(by: .seconds(5))
/// try await task.value
/// ```
public final class ManualClock: Clock, Sendable {
  /// A point in the time of a ``ManualClock``: how far it is from the clock's start.
  public struct Instant: InstantProtocol, Hashable, Sendable {
    /// The time since the clock's start.
    public var offset: Duration

    /// Creates an instant at `offset` from the clock's start.
    ///
    /// - Parameter offset: The time since the clock's start.
    public init(offset: Duration) {
      self.offset = offset
    }

    /// The instant `duration` after this one.
    ///
    /// - Parameter duration: How far to move; negative moves back.
    /// - Returns: The instant.
    public func advanced(by duration: Duration) -> Self {
      Self(offset: self.offset + duration)
    }

    /// The time from this instant to another.
    ///
    /// - Parameter other: The other instant.
    /// - Returns: The duration; negative when `other` comes first.
    public func duration(to other: Self) -> Duration {
      other.offset - self.offset
    }

    /// Whether the first instant comes before the second.
    public static func < (lhs: Self, rhs: Self) -> Bool {
      lhs.offset < rhs.offset
    }
  }

  private struct Sleeper {
    let id: Int
    let deadline: Instant
    let continuation: CheckedContinuation<Void, any Error>
  }

  private enum Handshake {
    case startedSleeps(Int)
    case sleepers(Int)
  }

  private struct State {
    var now = Instant(offset: .zero)
    var nextID = 0
    var sleepers = [Sleeper]()
    /// Sleeps whose task was cancelled before they registered.
    var cancelledIDs = Set<Int>()
    var sleepCount = 0
    var handshakes = [(handshake: Handshake, continuation: CheckedContinuation<Void, Never>)]()

    func isMet(_ handshake: Handshake) -> Bool {
      switch handshake {
      case .startedSleeps(let count): self.sleepCount >= count
      case .sleepers(let count): self.sleepers.count == count
      }
    }

    mutating func takeMetHandshakes() -> [CheckedContinuation<Void, Never>] {
      var met = [CheckedContinuation<Void, Never>]()
      var waiting = [(handshake: Handshake, continuation: CheckedContinuation<Void, Never>)]()
      for entry in self.handshakes {
        if self.isMet(entry.handshake) {
          met.append(entry.continuation)
        } else {
          waiting.append(entry)
        }
      }
      self.handshakes = waiting
      return met
    }
  }

  private let state = Lock(State())

  /// Creates a clock at its start, `Instant(offset: .zero)`.
  public init() {}

  /// The current instant, which moves only with ``advance(by:)``.
  public var now: Instant {
    self.state.withLock { $0.now }
  }

  /// The clock's resolution: none, time moves by exactly what a test asks.
  public var minimumResolution: Duration {
    .zero
  }

  /// The number of sleeps that have started, including those that ended.
  public var sleepCount: Int {
    self.state.withLock { $0.sleepCount }
  }

  /// The number of tasks sleeping now, waiting for their deadline.
  public var pendingSleeperCount: Int {
    self.state.withLock { $0.sleepers.count }
  }

  /// Suspends until ``advance(by:)`` moves the clock to `deadline`, or the task is cancelled.
  ///
  /// A deadline that has passed returns at once, after counting the sleep.
  ///
  /// - Parameters:
  ///   - deadline: The instant to wake at.
  ///   - tolerance: Ignored; the clock wakes exactly at the deadline.
  /// - Throws: `CancellationError` when the task is cancelled first.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    let id = self.state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let (immediate, handshakes) = self.state.withLock {
          state -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
          if state.cancelledIDs.remove(id) != nil {
            return (.failure(CancellationError()), [])
          }
          state.sleepCount += 1
          if deadline > state.now {
            state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
            return (nil, state.takeMetHandshakes())
          }
          return (.success(()), state.takeMetHandshakes())
        }
        for handshake in handshakes {
          handshake.resume()
        }
        if let immediate {
          continuation.resume(with: immediate)
        }
      }
    } onCancel: {
      let (sleeper, handshakes) = self.state.withLock {
        state -> (Sleeper?, [CheckedContinuation<Void, Never>]) in
        guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
          state.cancelledIDs.insert(id)
          return (nil, [])
        }
        let sleeper = state.sleepers.remove(at: index)
        return (sleeper, state.takeMetHandshakes())
      }
      sleeper?.continuation.resume(throwing: CancellationError())
      for handshake in handshakes {
        handshake.resume()
      }
    }
  }

  /// Moves time forward and wakes every sleeper whose deadline has come, earliest first.
  ///
  /// - Parameter duration: How far to move; must not be negative.
  public func advance(by duration: Duration) {
    precondition(duration >= .zero, "ManualClock cannot move back in time (by \(duration))")
    let (due, handshakes) = self.state.withLock {
      state -> ([Sleeper], [CheckedContinuation<Void, Never>]) in
      state.now = state.now.advanced(by: duration)
      let now = state.now
      let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
      state.sleepers.removeAll { $0.deadline <= now }
      return (due, state.takeMetHandshakes())
    }
    for sleeper in due {
      sleeper.continuation.resume()
    }
    for handshake in handshakes {
      handshake.resume()
    }
  }

  /// Returns once `count` sleeps have started in total, counting those that already ended.
  ///
  /// - Parameter count: The number of sleeps to wait for.
  public func waitForSleeps(count: Int) async {
    await self.wait(for: .startedSleeps(count))
  }

  /// Returns once exactly `count` tasks are sleeping on the clock.
  ///
  /// - Parameter count: The number of sleeping tasks to wait for.
  public func waitForSleepers(count: Int) async {
    await self.wait(for: .sleepers(count))
  }

  private func wait(for handshake: Handshake) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let isMet = self.state.withLock { state in
        guard !state.isMet(handshake) else { return true }
        state.handshakes.append((handshake, continuation))
        return false
      }
      if isMet {
        continuation.resume()
      }
    }
  }
}
