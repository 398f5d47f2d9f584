// The checks of the resilience steps: a circuit breaker that opens, fails fast, probes and closes,
// and a batch loader that turns many lookups into one request.

/// A circuit breaker as a client's snapshot lists it (the library's `CircuitBreaker.Snapshot`,
/// which this target does not import).
public struct BreakerFigures: Hashable, Sendable, CustomStringConvertible {
  /// The breaker's name.
  public var name: String
  /// Its state: `closed`, `open` or `half-open`.
  public var state: String
  /// How many times it opened.
  public var openings: Int
  /// How many attempts it failed at once.
  public var rejections: Int

  /// Creates the figures.
  public init(name: String, state: String, openings: Int, rejections: Int) {
    self.name = name
    self.state = state
    self.openings = openings
    self.rejections = rejections
  }

  /// Such as `"users": open, 1 opening(s), 5 rejection(s)`.
  public var description: String {
    "\"\(self.name)\": \(self.state), \(self.openings) opening(s), \(self.rejections) rejection(s)"
  }
}

extension Verdict {
  // MARK: - Circuit breaker

  /// Checks that failures in a row opened a closed breaker: the run made `threshold` attempts,
  /// each one request, and the breaker is open.
  ///
  /// - Parameters:
  ///   - attempts: The attempts that reached the query.
  ///   - requests: The requests the server received for them, or `nil` without the embedded
  ///     server.
  ///   - threshold: The failures in a row that open the breaker.
  ///   - state: The breaker's state after the run.
  /// - Returns: The verdict; it fails when no attempt was made.
  public static func breakerOpened(
    attempts: Int,
    requests: Int?,
    threshold: Int,
    state: String
  ) -> Verdict {
    let received = requests.map { ", \($0) request(s) received by the server" } ?? ""
    return Verdict(
      passed: attempts == threshold && (requests == nil || requests == attempts)
        && state == "open",
      message: "\(attempts) failed attempt(s) in a row (\(threshold) open the breaker)\(received); "
        + "the breaker is \(state)"
    )
  }

  /// Checks that an open breaker failed every run at once: each with `CircuitBreakerOpenError`,
  /// without calling the query or sending a request.
  ///
  /// - Parameters:
  ///   - runs: The fetches made while the breaker was open.
  ///   - rejected: How many of them failed with `CircuitBreakerOpenError`.
  ///   - queryCalls: The attempts that reached the query meanwhile.
  ///   - requests: The requests the server received meanwhile, or `nil` without the embedded
  ///     server.
  /// - Returns: The verdict; it fails when no fetch was made.
  public static func failedFast(runs: Int, rejected: Int, queryCalls: Int, requests: Int?)
    -> Verdict
  {
    let received = requests.map { ", the server received \($0) request(s)" } ?? ""
    return Verdict(
      passed: runs > 0 && rejected == runs && queryCalls == 0 && (requests ?? 0) == 0,
      message: "\(rejected) of \(runs) fetch(es) failed at once with CircuitBreakerOpenError; "
        + "the query ran \(queryCalls) time(s)\(received)"
    )
  }

  /// Checks a probe after the cool-down: one call of the query, one request, and the state it
  /// left the breaker in.
  ///
  /// - Parameters:
  ///   - succeeded: Whether the probe returned a value.
  ///   - queryCalls: The attempts that reached the query.
  ///   - requests: The requests the server received for them, or `nil` without the embedded
  ///     server.
  ///   - state: The breaker's state after the run.
  ///   - expectedState: `open` after a failed probe, `closed` after a good one.
  /// - Returns: The verdict.
  public static func breakerProbe(
    succeeded: Bool,
    queryCalls: Int,
    requests: Int?,
    state: String,
    expectedState: String
  ) -> Verdict {
    let received = requests.map { ", \($0) request(s) received by the server" } ?? ""
    let outcome = succeeded ? "succeeded" : "failed"
    return Verdict(
      passed: queryCalls == 1 && (requests == nil || requests == 1) && state == expectedState
        && succeeded == (expectedState == "closed"),
      message: "the half-open breaker let \(queryCalls) probe(s) through\(received); it "
        + "\(outcome), and the breaker is \(state) (\(expectedState) expected)"
    )
  }

  /// Checks the transitions that the instrument heard, in order.
  ///
  /// - Parameters:
  ///   - seen: The transitions, such as `closed → open`.
  ///   - expected: The transitions expected.
  /// - Returns: The verdict; it fails when none were expected.
  public static func breakerTransitions(_ seen: [String], expected: [String]) -> Verdict {
    guard !expected.isEmpty else {
      return Verdict(passed: false, message: "no breaker transition to check")
    }
    let list = seen.isEmpty ? "none" : seen.joined(separator: ", ")
    return Verdict(
      passed: seen == expected,
      message: seen == expected
        ? "the instrument heard every transition, in order: \(list)"
        : "the instrument heard \(list); expected \(expected.joined(separator: ", "))"
    )
  }

  /// Checks that a client's snapshot lists a breaker as expected.
  ///
  /// - Parameters:
  ///   - listed: The breaker in `client.snapshot().circuitBreakers`, or `nil` when it is not
  ///     there.
  ///   - expected: What it should show.
  /// - Returns: The verdict.
  public static func snapshotLists(_ listed: BreakerFigures?, expected: BreakerFigures) -> Verdict {
    guard let listed else {
      return Verdict(
        passed: false,
        message: "client.snapshot().circuitBreakers does not list \"\(expected.name)\""
      )
    }
    return Verdict(
      passed: listed == expected,
      message: listed == expected
        ? "client.snapshot().circuitBreakers lists \(listed)"
        : "client.snapshot().circuitBreakers lists \(listed); expected \(expected)"
    )
  }

  // MARK: - Batch loader

  /// Checks that a round of lookups made one request, with each of its distinct ids once.
  ///
  /// - Parameters:
  ///   - lookups: The lookups of the round.
  ///   - ids: The ids looked up, repeats included.
  ///   - requests: The ids of each request of the round, in order.
  ///   - source: Who counted the requests, such as `the server`.
  /// - Returns: The verdict; it fails when there was no lookup.
  public static func oneBatch(lookups: Int, ids: [Int], requests: [[Int]], source: String)
    -> Verdict
  {
    let distinct = Set(ids)
    let prefix = "\(lookups) lookup(s) of \(distinct.count) distinct id(s)"
    guard lookups > 0, !distinct.isEmpty else {
      return Verdict(passed: false, message: "no lookup to check (\(requests.count) request(s))")
    }
    guard requests.count == 1, let batch = requests.first else {
      let sizes = requests.map { "\($0.count)" }.joined(separator: ", ")
      return Verdict(
        passed: false,
        message: "\(prefix): \(source) received \(requests.count) request(s)"
          + (requests.isEmpty ? "" : " with \(sizes) id(s)") + ", 1 expected"
      )
    }
    let isExact = batch.count == distinct.count && Set(batch) == distinct
    return Verdict(
      passed: isExact,
      message: isExact
        ? "\(prefix): \(source) received 1 request, with \(batch.count) id(s)"
        : "\(prefix): \(source) received 1 request, with \(batch.count) id(s) "
          + "(\(Set(batch).count) distinct), not each of the \(distinct.count) once"
    )
  }

  /// Checks that each store of a round holds the user it looked up, except the ids that the
  /// server does not have, whose stores alone fail with `BatchLoaderMissingValueError`.
  ///
  /// - Parameters:
  ///   - stores: The stores of the round.
  ///   - correct: The stores that hold the user of their id.
  ///   - missing: The stores of unknown ids that failed with `BatchLoaderMissingValueError`.
  ///   - expectedMissing: The stores of unknown ids.
  ///   - otherFailures: The texts of the other stores' errors.
  /// - Returns: The verdict; it fails when there is no store.
  public static func batchResults(
    stores: Int,
    correct: Int,
    missing: Int,
    expectedMissing: Int,
    otherFailures: [String]
  ) -> Verdict {
    guard stores > 0 else {
      return Verdict(passed: false, message: "no store to check")
    }
    let passed =
      correct == stores - expectedMissing && missing == expectedMissing && otherFailures.isEmpty
    var message = "\(correct) of \(stores) store(s) hold their user"
    if expectedMissing > 0 || missing > 0 {
      message +=
        "; \(missing) of the \(expectedMissing) with an unknown id failed alone with "
        + "BatchLoaderMissingValueError"
    }
    if let first = otherFailures.first {
      message += "; \(otherFailures.count) failed otherwise, such as “\(first)”"
    }
    return Verdict(passed: passed, message: message)
  }
}
