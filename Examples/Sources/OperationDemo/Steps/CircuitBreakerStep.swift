import Foundation
import Operation
import OperationDemoSupport

/// Step 10: a circuit breaker opens when the users API keeps failing, fails the next fetches at
/// once without a request, lets a probe through after its cool-down, and closes when the probe
/// succeeds.
///
/// The breaker reads the run's clock, and the step moves that clock past the cool-down instead of
/// waiting for it: each phase is then decided by the breaker's counts alone, however slowly a
/// loaded machine runs the step.
enum CircuitBreakerStep {
  private static let userID = 1
  private static let label = "user \(userID)"
  private static let key = "GET /users/\(userID)"
  private static let threshold = 3
  private static let coolDown = Duration.seconds(30)
  private static let fetchesWhileOpen = 5

  static func run(_ env: DemoEnvironment) async {
    env.terminal.step(10, "A circuit breaker: the users API fails, the breaker opens, then closes")
    env.terminal.note(
      "CircuitBreaker(name: \"users\", threshold: .consecutiveFailures(\(Self.threshold)), "
        + "coolDown: .seconds(\(Self.coolDown.components.seconds)))"
    )
    env.terminal.note(
      "User.Query(id:).circuitBreaker(breaker).retry(limit: 2) { !($1 is CircuitBreakerOpenError) }"
    )
    env.terminal.note(
      "The breaker reads the run's clock; the demo moves it past the cool-down instead of waiting."
    )
    let breaker = CircuitBreaker(
      name: "users",
      threshold: .consecutiveFailures(Self.threshold),
      coolDown: OperationDuration(duration: Self.coolDown)
    )
    let clock = SkippingClock()
    let transitions = BreakerTransitions(terminal: env.terminal)
    let store = env.client.store(
      for: User.query(for: Self.userID, through: breaker, clock: clock, instrument: transitions)
    )
    let fetch = { () async -> Result<User, any Error> in
      do {
        let user = try await store.fetch()
        env.terminal.event(Self.label, "success: \(user.text)")
        return .success(user)
      } catch {
        env.terminal.event(Self.label, "failure: \(error)")
        return .failure(error)
      }
    }
    let state = { breaker.state(at: clock.now()).rawValue }

    env.terminal.note(
      env.server == nil
        ? "The client's simulated outage fails every request (--base-url); one fetch:"
        : "The server fails \(Self.key) with HTTP 500 (the demo's switch); one fetch:"
    )
    var mark = Mark(env)
    await Self.whileFailing(env) {
      _ = await fetch()
      env.checks.record(
        .breakerOpened(
          attempts: mark.queryCalls(env),
          requests: mark.requests(env),
          threshold: Self.threshold,
          state: state()
        )
      )

      env.terminal.note("\(Self.fetchesWhileOpen) more fetches while the breaker is open:")
      mark = Mark(env)
      var rejected = 0
      for _ in 0..<Self.fetchesWhileOpen {
        if case .failure(let error) = await fetch(), error is CircuitBreakerOpenError {
          rejected += 1
        }
      }
      env.checks.record(
        .failedFast(
          runs: Self.fetchesWhileOpen,
          rejected: rejected,
          queryCalls: mark.queryCalls(env),
          requests: mark.requests(env)
        )
      )
      Self.checkSnapshot(env, state: "open", openings: 1, rejections: Self.fetchesWhileOpen)

      env.terminal.note(
        "The clock moves \(Self.coolDown.components.seconds) s: the next fetch half-opens the "
          + "breaker and is its probe."
      )
      env.terminal.note(
        "The requests still fail: the probe's failure opens it again, and it refuses the retry."
      )
      clock.skip(Self.coolDown)
      mark = Mark(env)
      let probe = await fetch()
      env.checks.record(
        .breakerProbe(
          succeeded: (try? probe.get()) != nil,
          queryCalls: mark.queryCalls(env),
          requests: mark.requests(env),
          state: state(),
          expectedState: "open"
        )
      )
    }

    env.terminal.note(
      "The failures stop, and the clock moves \(Self.coolDown.components.seconds) s again:"
    )
    clock.skip(Self.coolDown)
    mark = Mark(env)
    let final = await fetch()
    env.checks.record(
      .breakerProbe(
        succeeded: (try? final.get()) != nil,
        queryCalls: mark.queryCalls(env),
        requests: mark.requests(env),
        state: state(),
        expectedState: "closed"
      )
    )
    env.checks.record(
      .breakerTransitions(
        transitions.seen,
        expected: [
          "closed → open", "open → half-open", "half-open → open", "open → half-open",
          "half-open → closed",
        ]
      )
    )
    // NB: The retry after the failed probe was refused too: one rejection more than the fetches
    // made while the breaker was open.
    Self.checkSnapshot(env, state: "closed", openings: 2, rejections: Self.fetchesWhileOpen + 1)
    let expected = env.server?.users.user(id: Self.userID)
    env.checkRun(
      final,
      label: Self.label,
      serverKeys: { $0 == Self.key },
      expectation: expected.map { "\($0.firstName) \($0.lastName) (id \($0.id))" } ?? Self.label
    ) { user in
      user.id == Self.userID && (expected == nil || user.firstName == expected?.firstName)
    }
  }

  /// Prints the breaker as `client.snapshot()` lists it, and checks it.
  private static func checkSnapshot(
    _ env: DemoEnvironment,
    state: String,
    openings: Int,
    rejections: Int
  ) {
    let listed = env.client.snapshot().circuitBreakers.first { $0.name == "users" }
    let figures = listed.map {
      BreakerFigures(
        name: $0.name,
        state: $0.state.rawValue,
        openings: $0.openings,
        rejections: $0.rejections
      )
    }
    env.terminal.event("client.snapshot()", "circuitBreakers: \(figures.map { "\($0)" } ?? "none")")
    env.checks.record(
      .snapshotLists(
        figures,
        expected: BreakerFigures(
          name: "users",
          state: state,
          openings: openings,
          rejections: rejections
        )
      )
    )
  }

  /// Runs `body` while the users API fails: the embedded server answers `GET /users/1` with
  /// HTTP 500; with `--base-url`, the client's simulated outage fails every request unsent.
  private static func whileFailing(_ env: DemoEnvironment, _ body: () async -> Void) async {
    if let server = env.server {
      await server.failingRequests(withKey: Self.key, during: body)
      return
    }
    env.api.traffic.isOffline = true
    await body()
    env.api.traffic.isOffline = false
  }

  /// The counts at the start of a phase: the attempts that reached the query (the handler inside
  /// the breaker hears only those) and the requests the server received.
  private struct Mark {
    let attempts: Int
    let requests: Int?

    init(_ env: DemoEnvironment) {
      self.attempts = env.reporter.attempts(for: CircuitBreakerStep.label)
      self.requests = env.server?.requestCount(for: CircuitBreakerStep.key)
    }

    func queryCalls(_ env: DemoEnvironment) -> Int {
      env.reporter.attempts(for: CircuitBreakerStep.label) - self.attempts
    }

    func requests(_ env: DemoEnvironment) -> Int? {
      guard let server = env.server, let requests = self.requests else { return nil }
      return server.requestCount(for: CircuitBreakerStep.key) - requests
    }
  }
}

/// The breaker step's clock: the system's time, plus the time the step skipped.
final class SkippingClock: OperationClock, Sendable {
  private let offset = Locked(0.0)

  func now() -> Date {
    Date().addingTimeInterval(self.offset.withLock { $0 })
  }

  /// Moves the clock forward.
  func skip(_ duration: Duration) {
    self.offset.withLock { $0 += duration.inSeconds }
  }
}

/// An instrument that prints each transition of a circuit breaker and keeps them, in order.
final class BreakerTransitions: OperationInstrument, Sendable {
  private let terminal: Terminal
  private let transitions = Locked([String]())

  init(terminal: Terminal) {
    self.terminal = terminal
  }

  /// The transitions heard so far, such as `closed → open`.
  var seen: [String] {
    self.transitions.withLock { $0 }
  }

  func started(_ work: OperationWork) -> (any OperationWorkObservation)? {
    nil
  }

  func record(_ event: OperationInstrumentEvent, in run: OperationRunInfo) {
    guard case .circuitBreakerTransition(let breaker, let from, let to) = event else { return }
    let text = "\(from.rawValue) → \(to.rawValue)"
    self.transitions.withLock { $0.append(text) }
    self.terminal.event("breaker \"\(breaker)\"", text)
  }
}
