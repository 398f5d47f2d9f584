import OperationDemoSupport
import Testing

@Suite struct `Verdict+Metrics tests` {
  private typealias Fixture = `MetricsReconciliation tests`

  private static func verdict(
    counts: [OperationCounts] = Fixture.counts,
    traffic: [OperationTraffic] = Fixture.traffic,
    excluded: [ExcludedRoute] = Fixture.excluded(4),
    received: [String: Int] = Fixture.received
  ) -> Verdict {
    .metricsAgreeWithServer(
      MetricsReconciliation(
        counts: counts,
        traffic: traffic,
        excluded: excluded,
        received: received
      )
    )
  }

  @Test func `passes when every route and the total agree`() {
    let verdict = Self.verdict()
    #expect(verdict.passed)
    #expect(verdict.message.contains("imply 29 request(s)"))
    #expect(verdict.message.contains("(33 received − 4 sent outside the stores)"))
    #expect(verdict.message.contains("GET /posts/{id} 9"))
  }

  @Test func `fails when the server received no request`() {
    let verdict = Self.verdict(received: [:])
    #expect(!verdict.passed)
    #expect(verdict.message.contains("received no request"))
    #expect(!Self.verdict(counts: [], received: [:]).passed)
  }

  @Test func `fails when the metrics counted no run`() {
    let verdict = Self.verdict(counts: [])
    #expect(!verdict.passed)
    #expect(verdict.message.contains("counted no run"))
  }

  @Test func `fails while a run has not ended`() {
    var counts = Fixture.counts
    counts[3].runs += 1
    counts[3].retries -= 1
    let verdict = Self.verdict(counts: counts)
    #expect(!verdict.passed)
    #expect(verdict.message.contains("had not ended when the metrics were read (1 of Post.Query)"))
  }

  @Test func `fails when the metrics imply no request`() {
    let verdict = Self.verdict(
      counts: [OperationCounts(operation: "Post.DurableCreateMutation", runs: 3, successes: 3)],
      received: [RequestRoute.createPostIdempotently: 4]
    )
    #expect(!verdict.passed)
    #expect(verdict.message.contains("imply no request"))
  }

  @Test func `fails on an operation without a formula`() {
    let verdict = Self.verdict(
      counts: Fixture.counts + [OperationCounts(operation: "Post.Query.Default", runs: 1)]
    )
    #expect(!verdict.passed)
    #expect(verdict.message.contains("no request formula for Post.Query.Default"))
  }

  @Test func `fails when a route received more than the metrics imply`() {
    var received = Fixture.received
    received[RequestRoute.post] = 10
    let verdict = Self.verdict(received: received)
    #expect(!verdict.passed)
    #expect(
      verdict.message.contains(
        "GET /posts/{id} received 10 request(s), the metrics of Post.Query imply 9"
      )
    )
  }

  @Test func `fails when the retries are added to the pages`() {
    // NB: A formula that counts a retried page twice must not pass.
    let traffic = Fixture.traffic.map { entry in
      entry.route == RequestRoute.feedPages
        ? OperationTraffic(operation: entry.operation, route: entry.route, formula: .onePerAttempt)
        : entry
    }
    #expect(!Self.verdict(traffic: traffic).passed)
  }

  @Test func `fails when a route's requests are moved to another`() {
    // NB: The totals agree; the routes do not.
    var received = Fixture.received
    received[RequestRoute.post] = 10
    received[RequestRoute.createPost] = 6
    let verdict = Self.verdict(received: received)
    #expect(!verdict.passed)
    #expect(verdict.message.contains("GET /posts/{id}"))
    #expect(verdict.message.contains("POST /posts/add received 6"))
  }

  @Test func `fails on requests that nothing accounts for`() {
    var received = Fixture.received
    received[RequestRoute.health] = 1
    let verdict = Self.verdict(received: received)
    #expect(!verdict.passed)
    #expect(
      verdict.message.contains("GET /health received 1 request(s) that no operation's metrics")
    )
  }

  @Test func `fails when an excluded route received other than what the demo sent`() {
    let verdict = Self.verdict(excluded: Fixture.excluded(3))
    #expect(!verdict.passed)
    #expect(verdict.message.contains("received 4 request(s), the demo sent 3"))
  }

  @Test func `an excluded route that the demo does not count is not compared`() {
    #expect(Self.verdict(excluded: Fixture.excluded(nil)).passed)
  }

  @Test func `fails when the exclusion is missing`() {
    #expect(!Self.verdict(excluded: []).passed)
  }

  @Test func `the endpoint check passes on the registry's counts`() {
    let text = #"operation_runs_total{operation="A"} 2"#
    let verdict = Verdict.metricsEndpointServes(served: text, registry: text)
    #expect(verdict.passed)
    #expect(verdict.message.contains("1 operation group(s)"))
  }

  @Test func `the endpoint check fails without a text, on an empty one, and on other counts`() {
    let text = #"operation_runs_total{operation="A"} 2"#
    let missing = Verdict.metricsEndpointServes(served: nil, problem: "HTTP 404", registry: text)
    #expect(!missing.passed)
    #expect(missing.message.contains("HTTP 404"))
    #expect(!Verdict.metricsEndpointServes(served: "", registry: "").passed)
    #expect(!Verdict.metricsEndpointServes(served: "up 1", registry: text).passed)
    let other = #"operation_runs_total{operation="A"} 3"#
    #expect(!Verdict.metricsEndpointServes(served: other, registry: text).passed)
  }
}
