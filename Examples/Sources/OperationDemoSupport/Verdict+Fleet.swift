// The checks of the fleet test (`operation-demo fleet-test`): several processes that share one
// PostgreSQL database. Each one fails on empty input, so that a round in which nothing ran
// cannot pass.

extension Verdict {
  /// Checks that the upstream server received exactly `expected` requests for a key.
  ///
  /// - Parameters:
  ///   - key: The key the fleet fetched.
  ///   - requests: The requests the server received for it.
  ///   - expected: The requests the round allows: 1 for a coalesced fill, 2 when a leader died
  ///     or stalled and another instance took over.
  /// - Returns: The verdict.
  public static func upstreamRequests(key: String, requests: Int, expected: Int) -> Verdict {
    Verdict(
      passed: requests == expected,
      message: "the upstream server received \(requests) request(s) for \(key) "
        + (requests == expected ? "" : "where the round allows ") + "(expected \(expected))"
    )
  }

  /// Checks that one child led the fill of a key and every other child got its value: by
  /// following the fill, or from the shared cache when its first step came after the value.
  ///
  /// - Parameters:
  ///   - led: The children's `fillsLed`, summed.
  ///   - followed: Their `fillsFollowed`, summed.
  ///   - servedFresh: Their `fillsServedFresh`, summed.
  ///   - children: The children that fetched.
  /// - Returns: The verdict; it fails when no child fetched.
  public static func fillCoalesced(led: Int, followed: Int, servedFresh: Int, children: Int)
    -> Verdict
  {
    let text = "\(led) led, \(followed) followed, \(servedFresh) served from the shared cache"
    let passed = children > 0 && led == 1 && followed + servedFresh == children - 1
    return Verdict(
      passed: passed,
      message: passed
        ? "one child led the fill and the \(children - 1) others shared its value (\(text))"
        : "the fills of \(children) children: \(text)"
    )
  }

  /// Checks that every caller of every child ended: with a value, or with an error when
  /// `allowsErrors`; none was left waiting.
  ///
  /// - Parameters:
  ///   - reports: One report per child that was expected to answer.
  ///   - expectedChildren: The number of children expected to answer.
  ///   - callers: The fetches each child started.
  ///   - allowsErrors: Whether a clear error is an acceptable end.
  /// - Returns: The verdict; it fails when no child answered.
  public static func everyCallerAnswered(
    reports: [FleetFetchReport],
    expectedChildren: Int,
    callers: Int,
    allowsErrors: Bool
  ) -> Verdict {
    guard !reports.isEmpty, callers > 0 else {
      return Verdict(passed: false, message: "no child reported its fetches")
    }
    let values = reports.reduce(0) { $0 + $1.values }
    let errors = reports.reduce(0) { $0 + $1.errors }
    let expected = expectedChildren * callers
    let messages = Set(reports.flatMap(\.errorMessages)).sorted()
    let errorText = messages.isEmpty ? "" : " (errors: \(messages.joined(separator: "; ")))"
    guard reports.count == expectedChildren, values + errors == expected else {
      return Verdict(
        passed: false,
        message: "\(reports.count) of \(expectedChildren) children answered, with "
          + "\(values + errors) of \(expected) fetches ended\(errorText)"
      )
    }
    guard allowsErrors || errors == 0 else {
      return Verdict(
        passed: false,
        message: "\(errors) of \(expected) fetches threw\(errorText)"
      )
    }
    return Verdict(
      passed: true,
      message: "each of the \(expected) fetches of \(expectedChildren) children ended: "
        + "\(values) with a value, \(errors) with an error\(errorText)"
    )
  }

  /// Checks that the surviving children got their values from another instance than the leader
  /// that died or stalled, and that one of them took the fill over.
  ///
  /// - Parameters:
  ///   - reports: The surviving children's reports.
  ///   - formerLeader: The instance whose request the server held.
  /// - Returns: The verdict; it fails when no child reported.
  public static func fillTakenOver(reports: [FleetFetchReport], formerLeader: String) -> Verdict {
    guard !reports.isEmpty else {
      return Verdict(passed: false, message: "no surviving child reported its fetches")
    }
    let takeovers = reports.reduce(0) { $0 + $1.counters.fillsTakenOver }
    let fetchers = Set(reports.flatMap(\.valuesByFetcher.keys)).sorted()
    let fromFormer = reports.reduce(0) { $0 + ($1.valuesByFetcher[formerLeader] ?? 0) }
    guard takeovers >= 1, fromFormer == 0 else {
      return Verdict(
        passed: false,
        message: "after \(formerLeader) lost its lease, \(takeovers) fill(s) were taken over "
          + "and \(fromFormer) caller(s) got its value (fetchers: "
          + "\(fetchers.joined(separator: ", ")))"
      )
    }
    return Verdict(
      passed: true,
      message: "\(fetchers.joined(separator: ", ")) took the fill over from \(formerLeader) "
        + "after its lease expired (\(takeovers) takeover(s))"
    )
  }

  /// Checks that a stalled leader's late value was refused by generation, exactly once.
  ///
  /// - Parameters:
  ///   - instance: The stalled leader.
  ///   - refused: Its `fillsRefused` count.
  /// - Returns: The verdict.
  public static func lateWriteRefused(instance: String, refused: Int) -> Verdict {
    Verdict(
      passed: refused == 1,
      message: refused == 1
        ? "\(instance)'s late write was refused by generation (fillsRefused = 1)"
        : "\(instance) reports fillsRefused = \(refused), where its late write makes 1"
    )
  }

  /// Checks that each child applied exactly the invalidations sent by another.
  ///
  /// - Parameters:
  ///   - appliedByChild: Each receiving child's `invalidationsApplied`.
  ///   - expected: The invalidations sent.
  /// - Returns: The verdict; it fails when no child or no invalidation is expected.
  public static func invalidationsApplied(
    appliedByChild: [String: Int],
    expected: Int
  ) -> Verdict {
    guard !appliedByChild.isEmpty, expected > 0 else {
      return Verdict(passed: false, message: "no invalidation was sent, or no child received")
    }
    let text = appliedByChild.sorted { $0.key < $1.key }
      .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    let passed = appliedByChild.values.allSatisfy { $0 == expected }
    return Verdict(
      passed: passed,
      message: passed
        ? "each child applied all \(expected) invalidations (\(text))"
        : "of \(expected) invalidations, the children applied \(text)"
    )
  }

  /// Checks that a child's listening connection was established again after it was terminated.
  ///
  /// - Parameters:
  ///   - instance: The child.
  ///   - connections: Its `listenerConnections`.
  /// - Returns: The verdict.
  public static func listenerReconnected(instance: String, connections: Int) -> Verdict {
    Verdict(
      passed: connections >= 2,
      message: connections >= 2
        ? "\(instance) listened again after its connection was terminated "
          + "(\(connections) listening connections)"
        : "\(instance) has \(connections) listening connection(s): it never listened again"
    )
  }

  /// Checks that a latency was measured for every invalidation each child applied.
  ///
  /// - Parameters:
  ///   - latencies: The percentiles of every child's latencies, `nil` for none.
  ///   - expected: The number of latencies expected (invalidations × receiving children).
  /// - Returns: The verdict.
  public static func latenciesMeasured(_ latencies: LatencyPercentiles?, expected: Int)
    -> Verdict
  {
    guard let latencies, expected > 0 else {
      return Verdict(passed: false, message: "no propagation latency was measured")
    }
    let text =
      "p50 \(Self.format(milliseconds: latencies.p50)), p99 \(Self.format(milliseconds: latencies.p99)), "
      + "max \(Self.format(milliseconds: latencies.largest))"
    return Verdict(
      passed: latencies.count == expected,
      message: latencies.count == expected
        ? "propagation latency over \(expected) applications: \(text)"
        : "\(latencies.count) of \(expected) applications reported a latency (\(text))"
    )
  }

  /// Checks that no outbox entry written in a rolled-back transaction reached the server.
  ///
  /// - Parameters:
  ///   - rolledBackKeys: The keys of the entries that were rolled back.
  ///   - appliedKeys: Every key the server applied.
  /// - Returns: The verdict; it fails when nothing was rolled back.
  public static func rolledBackNeverDelivered(
    rolledBackKeys: [String],
    appliedKeys: [String]
  ) -> Verdict {
    guard !rolledBackKeys.isEmpty else {
      return Verdict(passed: false, message: "no transaction was rolled back")
    }
    let delivered = Set(appliedKeys).intersection(rolledBackKeys).sorted()
    return Verdict(
      passed: delivered.isEmpty,
      message: delivered.isEmpty
        ? "none of the \(rolledBackKeys.count) entries of rolled-back transactions was delivered"
        : "\(delivered.count) entries of rolled-back transactions were delivered "
          + "(\(delivered.prefix(3).joined(separator: ", ")))"
    )
  }

  /// A duration in milliseconds, with one decimal, such as `12.5 ms`.
  ///
  /// - Parameter value: The duration in milliseconds.
  /// - Returns: The text.
  public static func format(milliseconds value: Double) -> String {
    let tenths = Int((abs(value) * 10).rounded())
    return "\(value < 0 ? "-" : "")\(tenths / 10).\(tenths % 10) ms"
  }
}
