import OperationDemoSupport
import Testing

@Suite struct `Verdict fleet tests` {
  private static func report(
    values: Int,
    errors: Int = 0,
    fetchedBy: String = "child-2",
    takenOver: Int = 0,
    errorMessages: [String] = []
  ) -> FleetFetchReport {
    var counters = FleetCounters()
    counters.fillsTakenOver = takenOver
    return FleetFetchReport(
      key: "round-b",
      values: values,
      errors: errors,
      valuesByFetcher: values > 0 ? [fetchedBy: values] : [:],
      errorMessages: errorMessages,
      counters: counters
    )
  }

  // MARK: - Upstream requests

  @Test func `Exactly The Expected Upstream Requests Pass`() {
    let verdict = Verdict.upstreamRequests(key: "round-a", requests: 1, expected: 1)
    #expect(verdict.passed)
    #expect(verdict.message == "the upstream server received 1 request(s) for round-a (expected 1)")
  }

  @Test(arguments: [0, 2, 3])
  func `Any Other Count Of Upstream Requests Fails`(requests: Int) {
    #expect(!Verdict.upstreamRequests(key: "round-a", requests: requests, expected: 1).passed)
  }

  // MARK: - Callers

  @Test func `Every Caller With A Value Passes`() {
    let verdict = Verdict.everyCallerAnswered(
      reports: [Self.report(values: 1_000), Self.report(values: 1_000)],
      expectedChildren: 2,
      callers: 1_000,
      allowsErrors: false
    )
    #expect(verdict.passed)
    #expect(
      verdict.message
        == "each of the 2000 fetches of 2 children ended: 2000 with a value, 0 with an error"
    )
  }

  @Test func `Clear Errors Pass Only Where The Round Allows Them`() {
    let reports = [
      Self.report(values: 990, errors: 10, errorMessages: ["no instance filled 'k'"]),
      Self.report(values: 1_000),
    ]
    let allowed = Verdict.everyCallerAnswered(
      reports: reports,
      expectedChildren: 2,
      callers: 1_000,
      allowsErrors: true
    )
    let refused = Verdict.everyCallerAnswered(
      reports: reports,
      expectedChildren: 2,
      callers: 1_000,
      allowsErrors: false
    )
    #expect(allowed.passed)
    #expect(allowed.message.hasSuffix("(errors: no instance filled 'k')"))
    #expect(!refused.passed)
    #expect(refused.message == "10 of 2000 fetches threw (errors: no instance filled 'k')")
  }

  @Test func `A Child That Never Answered Fails`() {
    let verdict = Verdict.everyCallerAnswered(
      reports: [Self.report(values: 1_000)],
      expectedChildren: 2,
      callers: 1_000,
      allowsErrors: true
    )
    #expect(!verdict.passed)
    #expect(verdict.message == "1 of 2 children answered, with 1000 of 2000 fetches ended")
  }

  @Test func `Callers Left Waiting Fail`() {
    let verdict = Verdict.everyCallerAnswered(
      reports: [Self.report(values: 999)],
      expectedChildren: 1,
      callers: 1_000,
      allowsErrors: true
    )
    #expect(!verdict.passed)
  }

  @Test func `No Report Fails`() {
    #expect(
      !Verdict.everyCallerAnswered(
        reports: [],
        expectedChildren: 0,
        callers: 1_000,
        allowsErrors: true
      ).passed
    )
  }

  // MARK: - Fills

  @Test func `One Leader And Followers Pass The Coalescing Check`() {
    let verdict = Verdict.fillCoalesced(led: 1, followed: 1, servedFresh: 1, children: 3)
    #expect(verdict.passed)
    #expect(
      verdict.message
        == "one child led the fill and the 2 others shared its value (1 led, 1 followed, "
        + "1 served from the shared cache)"
    )
  }

  @Test func `Two Leaders Fail The Coalescing Check`() {
    #expect(!Verdict.fillCoalesced(led: 2, followed: 0, servedFresh: 1, children: 3).passed)
    #expect(!Verdict.fillCoalesced(led: 0, followed: 0, servedFresh: 0, children: 0).passed)
  }

  @Test func `A Takeover With Values From Another Instance Passes`() {
    let verdict = Verdict.fillTakenOver(
      reports: [Self.report(values: 1_000, takenOver: 1), Self.report(values: 1_000)],
      formerLeader: "child-3"
    )
    #expect(verdict.passed)
    #expect(
      verdict.message == "child-2 took the fill over from child-3 after its lease expired "
        + "(1 takeover(s))"
    )
  }

  @Test func `A Value From The Former Leader Fails The Takeover Check`() {
    let verdict = Verdict.fillTakenOver(
      reports: [Self.report(values: 1_000, fetchedBy: "child-3", takenOver: 1)],
      formerLeader: "child-3"
    )
    #expect(!verdict.passed)
  }

  @Test func `No Takeover Fails The Takeover Check`() {
    #expect(!Verdict.fillTakenOver(reports: [Self.report(values: 1_000)], formerLeader: "c").passed)
    #expect(!Verdict.fillTakenOver(reports: [], formerLeader: "c").passed)
  }

  @Test(arguments: [(1, true), (0, false), (2, false), (-1, false)])
  func `Exactly One Refused Late Write Passes`(refused: Int, passes: Bool) {
    #expect(Verdict.lateWriteRefused(instance: "child-1", refused: refused).passed == passes)
  }

  // MARK: - Invalidations

  @Test func `Every Child Applying Every Invalidation Passes`() {
    let verdict = Verdict.invalidationsApplied(
      appliedByChild: ["child-3": 1_000, "child-2": 1_000],
      expected: 1_000
    )
    #expect(verdict.passed)
    #expect(
      verdict.message == "each child applied all 1000 invalidations (child-2 1000, child-3 1000)"
    )
  }

  @Test func `A Missing Or A Repeated Invalidation Fails`() {
    #expect(
      !Verdict.invalidationsApplied(
        appliedByChild: ["child-2": 999, "child-3": 1_000],
        expected: 1_000
      ).passed
    )
    #expect(
      !Verdict.invalidationsApplied(
        appliedByChild: ["child-2": 1_001, "child-3": 1_000],
        expected: 1_000
      ).passed
    )
    #expect(!Verdict.invalidationsApplied(appliedByChild: [:], expected: 1_000).passed)
  }

  @Test(arguments: [(2, true), (3, true), (1, false), (0, false)])
  func `A Listener Counts As Reconnected From Its Second Connection`(
    connections: Int,
    passes: Bool
  ) {
    #expect(
      Verdict.listenerReconnected(instance: "child-2", connections: connections).passed == passes
    )
  }

  @Test func `Latencies Pass When Every Application Reported One`() throws {
    let latencies = try #require(LatencyPercentiles(milliseconds: [1, 2, 3, 100]))
    let verdict = Verdict.latenciesMeasured(latencies, expected: 4)
    #expect(verdict.passed)
    #expect(
      verdict.message
        == "propagation latency over 4 applications: p50 2.0 ms, p99 100.0 ms, max 100.0 ms"
    )
    #expect(!Verdict.latenciesMeasured(latencies, expected: 5).passed)
    #expect(!Verdict.latenciesMeasured(nil, expected: 5).passed)
  }

  @Test(arguments: [
    (0.04, "0.0 ms"), (12.25, "12.3 ms"), (1_234.5, "1234.5 ms"), (-0.5, "-0.5 ms"),
  ])
  func `Milliseconds Are Written With One Decimal`(value: Double, text: String) {
    #expect(Verdict.format(milliseconds: value) == text)
  }

  // MARK: - Outbox

  @Test func `Rolled Back Entries Never Delivered Pass`() {
    let verdict = Verdict.rolledBackNeverDelivered(
      rolledBackKeys: ["lane-0-item-1000000"],
      appliedKeys: ["lane-0-item-0"]
    )
    #expect(verdict.passed)
    #expect(verdict.message == "none of the 1 entries of rolled-back transactions was delivered")
  }

  @Test func `A Delivered Rolled Back Entry Fails`() {
    let verdict = Verdict.rolledBackNeverDelivered(
      rolledBackKeys: ["lane-0-item-1000000"],
      appliedKeys: ["lane-0-item-0", "lane-0-item-1000000"]
    )
    #expect(!verdict.passed)
    #expect(
      verdict.message
        == "1 entries of rolled-back transactions were delivered (lane-0-item-1000000)"
    )
    #expect(!Verdict.rolledBackNeverDelivered(rolledBackKeys: [], appliedKeys: []).passed)
  }
}
