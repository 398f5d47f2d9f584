import OperationDemoSupport
import Testing

@Suite struct `Verdict resilience tests` {
  // MARK: - Circuit breaker

  @Test func `failures up to the threshold open the breaker`() {
    let verdict = Verdict.breakerOpened(attempts: 3, requests: 3, threshold: 3, state: "open")
    #expect(verdict.passed)
    #expect(
      verdict.message
        == "3 failed attempt(s) in a row (3 open the breaker), 3 request(s) received by the "
        + "server; the breaker is open"
    )
    #expect(Verdict.breakerOpened(attempts: 3, requests: nil, threshold: 3, state: "open").passed)
  }

  @Test func `a breaker that stayed closed, or a request too many, fails`() {
    #expect(!Verdict.breakerOpened(attempts: 3, requests: 3, threshold: 3, state: "closed").passed)
    #expect(!Verdict.breakerOpened(attempts: 3, requests: 4, threshold: 3, state: "open").passed)
    #expect(!Verdict.breakerOpened(attempts: 2, requests: 2, threshold: 3, state: "open").passed)
    #expect(!Verdict.breakerOpened(attempts: 0, requests: 0, threshold: 3, state: "open").passed)
  }

  @Test func `an open breaker fails every fetch at once`() {
    let verdict = Verdict.failedFast(runs: 5, rejected: 5, queryCalls: 0, requests: 0)
    #expect(verdict.passed)
    #expect(
      verdict.message
        == "5 of 5 fetch(es) failed at once with CircuitBreakerOpenError; the query ran 0 time(s), "
        + "the server received 0 request(s)"
    )
    #expect(Verdict.failedFast(runs: 5, rejected: 5, queryCalls: 0, requests: nil).passed)
  }

  @Test func `a fetch let through while open fails the check`() {
    #expect(!Verdict.failedFast(runs: 5, rejected: 4, queryCalls: 1, requests: 1).passed)
    #expect(!Verdict.failedFast(runs: 5, rejected: 5, queryCalls: 0, requests: 1).passed)
    #expect(!Verdict.failedFast(runs: 5, rejected: 5, queryCalls: 1, requests: nil).passed)
    #expect(!Verdict.failedFast(runs: 0, rejected: 0, queryCalls: 0, requests: 0).passed)
  }

  @Test func `a probe is one request, and its outcome decides the state`() {
    let closing = Verdict.breakerProbe(
      succeeded: true,
      queryCalls: 1,
      requests: 1,
      state: "closed",
      expectedState: "closed"
    )
    #expect(closing.passed)
    #expect(
      closing.message
        == "the half-open breaker let 1 probe(s) through, 1 request(s) received by the server; it "
        + "succeeded, and the breaker is closed (closed expected)"
    )
    let reopening = Verdict.breakerProbe(
      succeeded: false,
      queryCalls: 1,
      requests: nil,
      state: "open",
      expectedState: "open"
    )
    #expect(reopening.passed)
  }

  @Test func `a probe that did not decide as expected fails`() {
    #expect(
      !Verdict.breakerProbe(
        succeeded: true,
        queryCalls: 1,
        requests: 1,
        state: "open",
        expectedState: "open"
      ).passed
    )
    #expect(
      !Verdict.breakerProbe(
        succeeded: true,
        queryCalls: 2,
        requests: 2,
        state: "closed",
        expectedState: "closed"
      ).passed
    )
    #expect(
      !Verdict.breakerProbe(
        succeeded: false,
        queryCalls: 0,
        requests: 0,
        state: "open",
        expectedState: "open"
      ).passed
    )
  }

  @Test func `the transitions must come in order`() {
    let expected = ["closed → open", "open → half-open", "half-open → closed"]
    let verdict = Verdict.breakerTransitions(expected, expected: expected)
    #expect(verdict.passed)
    #expect(
      verdict.message
        == "the instrument heard every transition, in order: closed → open, open → half-open, "
        + "half-open → closed"
    )
    let missing = Verdict.breakerTransitions(["closed → open"], expected: expected)
    #expect(!missing.passed)
    #expect(
      missing.message
        == "the instrument heard closed → open; expected closed → open, open → half-open, "
        + "half-open → closed"
    )
    #expect(!Verdict.breakerTransitions([], expected: expected).passed)
    #expect(!Verdict.breakerTransitions([], expected: []).passed)
  }

  @Test func `the snapshot must list the breaker as expected`() {
    let expected = BreakerFigures(name: "users", state: "open", openings: 1, rejections: 5)
    let verdict = Verdict.snapshotLists(expected, expected: expected)
    #expect(verdict.passed)
    #expect(
      verdict.message
        == "client.snapshot().circuitBreakers lists \"users\": open, 1 opening(s), 5 rejection(s)"
    )
    var other = expected
    other.rejections = 4
    #expect(!Verdict.snapshotLists(other, expected: expected).passed)
    let absent = Verdict.snapshotLists(nil, expected: expected)
    #expect(!absent.passed)
    #expect(absent.message == "client.snapshot().circuitBreakers does not list \"users\"")
  }

  // MARK: - Batch loader

  @Test func `distinct ids in one request pass`() {
    let verdict = Verdict.oneBatch(
      lookups: 100,
      ids: Array(1...100),
      requests: [Array(1...100).reversed()],
      source: "the server"
    )
    #expect(verdict.passed)
    #expect(
      verdict.message
        == "100 lookup(s) of 100 distinct id(s): the server received 1 request, with 100 id(s)"
    )
  }

  @Test func `repeated ids are asked for once`() {
    let ids = (0..<100).map { $0 % 10 + 1 }
    let verdict = Verdict.oneBatch(
      lookups: 100,
      ids: ids,
      requests: [Array(1...10)],
      source: "the server"
    )
    #expect(verdict.passed)
    #expect(
      verdict.message
        == "100 lookup(s) of 10 distinct id(s): the server received 1 request, with 10 id(s)"
    )
    let repeated = Verdict.oneBatch(
      lookups: 100,
      ids: ids,
      requests: [Array(1...10) + [1]],
      source: "the server"
    )
    #expect(!repeated.passed)
    #expect(
      repeated.message
        == "100 lookup(s) of 10 distinct id(s): the server received 1 request, with 11 id(s) "
        + "(10 distinct), not each of the 10 once"
    )
  }

  @Test func `a split batch, no request or no lookup fails`() {
    let split = Verdict.oneBatch(
      lookups: 100,
      ids: Array(1...100),
      requests: [Array(1...60), Array(61...100)],
      source: "the server"
    )
    #expect(!split.passed)
    #expect(
      split.message
        == "100 lookup(s) of 100 distinct id(s): the server received 2 request(s) with 60, 40 "
        + "id(s), 1 expected"
    )
    let none = Verdict.oneBatch(
      lookups: 4,
      ids: [1, 2, 3, 4],
      requests: [],
      source: "the resolver"
    )
    #expect(!none.passed)
    #expect(
      none.message
        == "4 lookup(s) of 4 distinct id(s): the resolver received 0 request(s), 1 expected"
    )
    #expect(!Verdict.oneBatch(lookups: 0, ids: [], requests: [], source: "the server").passed)
    #expect(!Verdict.oneBatch(lookups: 0, ids: [1], requests: [[1]], source: "the server").passed)
  }

  @Test func `every store holds its user, and an unknown id fails alone`() {
    let verdict = Verdict.batchResults(
      stores: 4,
      correct: 3,
      missing: 1,
      expectedMissing: 1,
      otherFailures: []
    )
    #expect(verdict.passed)
    #expect(
      verdict.message
        == "3 of 4 store(s) hold their user; 1 of the 1 with an unknown id failed alone with "
        + "BatchLoaderMissingValueError"
    )
    let plain = Verdict.batchResults(
      stores: 100,
      correct: 100,
      missing: 0,
      expectedMissing: 0,
      otherFailures: []
    )
    #expect(plain.passed)
    #expect(plain.message == "100 of 100 store(s) hold their user")
  }

  @Test func `a failure that spread to other stores fails`() {
    let verdict = Verdict.batchResults(
      stores: 4,
      correct: 0,
      missing: 1,
      expectedMissing: 1,
      otherFailures: ["user 1: HTTP 500", "user 2: HTTP 500", "user 3: HTTP 500"]
    )
    #expect(!verdict.passed)
    #expect(
      verdict.message
        == "0 of 4 store(s) hold their user; 1 of the 1 with an unknown id failed alone with "
        + "BatchLoaderMissingValueError; 3 failed otherwise, such as “user 1: HTTP 500”"
    )
    #expect(
      !Verdict.batchResults(
        stores: 4,
        correct: 4,
        missing: 0,
        expectedMissing: 1,
        otherFailures: []
      )
      .passed
    )
    #expect(
      !Verdict.batchResults(
        stores: 0,
        correct: 0,
        missing: 0,
        expectedMissing: 0,
        otherFailures: []
      )
      .passed
    )
  }
}
