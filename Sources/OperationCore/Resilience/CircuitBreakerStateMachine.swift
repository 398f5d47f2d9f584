#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The decisions of a ``CircuitBreaker``, with no lock, clock or effect of their own: events in
/// (a call asks to start, a call ended), decisions and transitions out. The breaker drives it
/// under its lock with the time of its run's clock.
///
/// - **Closed**: every call starts. A failure that crosses the threshold opens the breaker.
/// - **Open**: every call is rejected until `coolDown` has passed since it opened; the first call
///   after that half-opens it.
/// - **Half-open**: `probes` calls start, the others are rejected. When every probe succeeds the
///   breaker closes; the first probe that fails opens it again, for another `coolDown`. Probes
///   that have not all ended within `coolDown` are given up (their ends change nothing), and the
///   next call probes in their place: a probe that hangs cannot keep the breaker half-open.
///
/// Each call carries the breaker's epoch from when it started, and every transition starts a new
/// epoch: a call that started before a transition (a slow call admitted while closed that fails
/// after the breaker opened) changes nothing when it ends.
struct CircuitBreakerStateMachine: Sendable {
  struct Configuration: Sendable {
    var threshold: CircuitBreaker.Threshold
    var coolDown: OperationDuration
    var probes: Int
  }

  /// What a call that asks to start is told.
  enum Admission: Equatable, Sendable {
    /// The call starts; it reports its end with this ticket.
    case admitted(Ticket)
    /// The call fails at once; the breaker may admit calls again after `retryAfter`, or when a
    /// probe ends (`nil`: a half-open breaker whose probes are all out cannot say when).
    case rejected(retryAfter: OperationDuration?)
  }

  /// What an admitted call reports its end with.
  struct Ticket: Equatable, Sendable {
    let epoch: Int
    let isProbe: Bool
  }

  /// How a call ended, as the breaker counts it.
  enum Outcome: Equatable, Sendable {
    case success
    case failure
    /// Neither: a cancelled call, which frees its probe slot.
    case ignored
  }

  private enum Phase: Sendable {
    /// `window` counts calls and failures for a failure-rate threshold only.
    case closed(consecutiveFailures: Int, window: WindowCounts?)
    case open(since: Date)
    /// `since` is when this round of probes began.
    case halfOpen(admitted: Int, succeeded: Int, since: Date)
  }

  let configuration: Configuration
  private var phase: Phase
  private(set) var epoch = 0

  init(configuration: Configuration) {
    self.configuration = configuration
    self.phase = Self.closedPhase(configuration)
  }

  /// The state the breaker reports, without the cool-down applied.
  var state: CircuitBreaker.State {
    switch self.phase {
    case .closed: .closed
    case .open: .open
    case .halfOpen: .halfOpen
    }
  }

  /// The state at `now`: an open breaker whose cool-down has passed reports half-open, which is
  /// what its next call finds.
  func state(at now: Date) -> CircuitBreaker.State {
    if case .open(let since) = self.phase, self.coolDownRemaining(since: since, at: now) == nil {
      return .halfOpen
    }
    return self.state
  }

  /// A call asks to start at `now`.
  mutating func admit(
    at now: Date
  ) -> (admission: Admission, transition: CircuitBreaker.Transition?) {
    var transition: CircuitBreaker.Transition?
    if case .open(let since) = self.phase {
      if let remaining = self.coolDownRemaining(since: since, at: now) {
        return (.rejected(retryAfter: remaining), nil)
      }
      transition = self.move(to: .halfOpen(admitted: 0, succeeded: 0, since: now))
    }
    switch self.phase {
    case .closed:
      return (.admitted(Ticket(epoch: self.epoch, isProbe: false)), transition)
    case .halfOpen(let admitted, let succeeded, let since):
      guard admitted < self.configuration.probes else {
        if self.coolDownRemaining(since: since, at: now) == nil {
          // NB: The round's probes outlived the cool-down: a new epoch gives them up, and this
          // call starts the next round. The state stays half-open, so no transition is told.
          self.epoch += 1
          self.phase = .halfOpen(admitted: 1, succeeded: 0, since: now)
          return (.admitted(Ticket(epoch: self.epoch, isProbe: true)), transition)
        }
        // NB: The probes are out, and when they end is unknown: the rejected call's backoff
        // decides when it asks again.
        return (.rejected(retryAfter: nil), transition)
      }
      self.phase = .halfOpen(admitted: admitted + 1, succeeded: succeeded, since: since)
      return (.admitted(Ticket(epoch: self.epoch, isProbe: true)), transition)
    case .open:
      preconditionFailure("An open breaker past its cool-down half-opens above.")
    }
  }

  /// An admitted call ended at `now`.
  mutating func end(
    _ ticket: Ticket,
    with outcome: Outcome,
    at now: Date
  ) -> CircuitBreaker.Transition? {
    guard ticket.epoch == self.epoch else { return nil }
    switch self.phase {
    case .closed(var consecutiveFailures, var window):
      switch outcome {
      case .ignored:
        return nil
      case .success:
        consecutiveFailures = 0
        window?.add(first: 1, at: now)
      case .failure:
        consecutiveFailures += 1
        window?.add(first: 1, second: 1, at: now)
      }
      if outcome == .failure, self.crossesThreshold(consecutiveFailures, window, at: now) {
        return self.move(to: .open(since: now))
      }
      self.phase = .closed(consecutiveFailures: consecutiveFailures, window: window)
      return nil
    case .halfOpen(let admitted, let succeeded, let since):
      switch outcome {
      case .ignored:
        self.phase = .halfOpen(admitted: max(0, admitted - 1), succeeded: succeeded, since: since)
        return nil
      case .failure:
        return self.move(to: .open(since: now))
      case .success:
        if succeeded + 1 >= self.configuration.probes {
          return self.move(to: Self.closedPhase(self.configuration))
        }
        self.phase = .halfOpen(admitted: admitted, succeeded: succeeded + 1, since: since)
        return nil
      }
    case .open:
      return nil
    }
  }

  private func crossesThreshold(
    _ consecutiveFailures: Int,
    _ window: WindowCounts?,
    at now: Date
  ) -> Bool {
    switch self.configuration.threshold.kind {
    case .consecutiveFailures(let count):
      return consecutiveFailures >= count
    case .failureRate(let rate, let minimumCalls, _):
      guard let (calls, failures) = window?.totals(at: now) else { return false }
      return calls >= minimumCalls && Double(failures) >= rate * Double(calls) - 1e-9
    }
  }

  private func coolDownRemaining(since: Date, at now: Date) -> OperationDuration? {
    let elapsed = OperationDuration.seconds(now.timeIntervalSince(since))
    return elapsed < self.configuration.coolDown ? self.configuration.coolDown - elapsed : nil
  }

  private mutating func move(to phase: Phase) -> CircuitBreaker.Transition {
    let from = self.state
    self.phase = phase
    self.epoch += 1
    return CircuitBreaker.Transition(from: from, to: self.state)
  }

  private static func closedPhase(_ configuration: Configuration) -> Phase {
    let window: WindowCounts? =
      if case .failureRate(_, _, let window) = configuration.threshold.kind {
        WindowCounts(window: window)
      } else {
        nil
      }
    return .closed(consecutiveFailures: 0, window: window)
  }
}
