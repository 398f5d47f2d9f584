import OperationDemoSupport
import Testing

@Suite struct `MetricsReconciliation tests` {
  static let traffic = [
    OperationTraffic(operation: "Post.Query", route: RequestRoute.post, formula: .onePerAttempt),
    OperationTraffic(
      operation: "Post.FeedQuery",
      route: RequestRoute.feedPages,
      formula: .onePerPage
    ),
    OperationTraffic(
      operation: "Post.CreateMutation",
      route: RequestRoute.createPost,
      formula: .onePerAttempt
    ),
    OperationTraffic(
      operation: "Post.DurableCreateMutation",
      route: nil,
      formula: .none("the outbox sends its requests")
    ),
  ]

  static let counts = [
    OperationCounts(
      operation: "Post.CreateMutation",
      runs: 3,
      successes: 2,
      failures: 1,
      retries: 4
    ),
    OperationCounts(operation: "Post.DurableCreateMutation", runs: 3, successes: 3),
    OperationCounts(operation: "Post.FeedQuery", runs: 4, successes: 4, retries: 2, pages: 13),
    OperationCounts(operation: "Post.Query", runs: 7, successes: 7, retries: 4, joins: 2),
  ]

  static func excluded(_ sent: Int?) -> [ExcludedRoute] {
    [
      ExcludedRoute(
        route: RequestRoute.createPostIdempotently,
        reason: "the outbox's deliveries",
        expectedRequests: sent
      )
    ]
  }

  static let received = [
    RequestRoute.post: 9,
    RequestRoute.feedPages: 13,
    RequestRoute.createPost: 7,
    RequestRoute.createPostIdempotently: 4,
  ]

  @Test func `the formulas`() {
    let counts = OperationCounts(operation: "X", runs: 7, retries: 4, joins: 2, pages: 13)
    #expect(RequestFormula.onePerAttempt.requests(for: counts) == 9)
    #expect(RequestFormula.onePerPage.requests(for: counts) == 13)
    #expect(RequestFormula.none("outbox").requests(for: counts) == 0)
  }

  @Test func `an open breaker's rejections send no request`() {
    // NB: The circuit-breaker step: 8 runs and 3 retries, 6 of those 11 attempts refused.
    let counts = OperationCounts(operation: "User.Query", runs: 8, retries: 3, rejections: 6)
    #expect(RequestFormula.onePerAdmittedAttempt.requests(for: counts) == 5)
    #expect(RequestFormula.onePerAttempt.requests(for: counts) == 11)
    #expect(RequestFormula.onePerAdmittedAttempt.text == "runs − joins + retries − rejections")
  }

  @Test func `reads the rejections of every policy`() {
    let samples = [
      PrometheusSample(name: "operation_runs_total", labels: ["operation": "A"], value: 8),
      PrometheusSample(
        name: "operation_rejections_total",
        labels: ["operation": "A", "policy": "users"],
        value: 5
      ),
      PrometheusSample(
        name: "operation_rejections_total",
        labels: ["operation": "A", "policy": "billing"],
        value: 1
      ),
      PrometheusSample(
        name: "operation_circuit_breaker_transitions_total",
        labels: ["breaker": "users", "to": "open"],
        value: 2
      ),
    ]
    #expect(
      OperationCounts.read(from: samples) == [
        OperationCounts(operation: "A", runs: 8, rejections: 6)
      ]
    )
  }

  @Test func `reads the counts per operation from the samples`() {
    let samples = [
      PrometheusSample(name: "operation_runs_total", labels: ["operation": "B"], value: 2),
      PrometheusSample(name: "operation_runs_total", labels: ["operation": "A"], value: 5),
      PrometheusSample(
        name: "operation_deduplicated_joins_total",
        labels: ["operation": "A"],
        value: 1
      ),
      PrometheusSample(name: "operation_pages_total", labels: ["operation": "A"], value: 3),
      PrometheusSample(
        name: "operation_run_duration_seconds_count",
        labels: ["operation": "A", "outcome": "success"],
        value: 4
      ),
      PrometheusSample(
        name: "operation_run_duration_seconds_count",
        labels: ["operation": "A", "outcome": "failure"],
        value: 1
      ),
      PrometheusSample(
        name: "operation_run_duration_seconds_sum",
        labels: ["operation": "A"],
        value: 9
      ),
      PrometheusSample(name: "other_runs_total", labels: ["operation": "A"], value: 100),
      PrometheusSample(name: "operation_runs_total", value: 100),
    ]
    #expect(
      OperationCounts.read(from: samples) == [
        OperationCounts(operation: "A", runs: 5, joins: 1, pages: 3, timedRuns: 5),
        OperationCounts(operation: "B", runs: 2),
      ]
    )
    #expect(OperationCounts.read(from: samples, prefix: "other").map(\.runs) == [100])
  }

  @Test func `compares every route and the total`() {
    let reconciliation = MetricsReconciliation(
      counts: Self.counts,
      traffic: Self.traffic,
      excluded: Self.excluded(4),
      received: Self.received
    )
    #expect(
      reconciliation.routes.map(\.route) == [
        RequestRoute.feedPages, RequestRoute.post, RequestRoute.createPost,
        RequestRoute.createPostIdempotently,
      ]
    )
    #expect(reconciliation.routes.map(\.implied) == [13, 9, 7, nil])
    #expect(reconciliation.routes.allSatisfy { $0.agrees })
    #expect(reconciliation.totalReceived == 33)
    #expect(reconciliation.totalExcluded == 4)
    #expect(reconciliation.totalImplied == 29)
    #expect(reconciliation.totalRuns == 17)
    #expect(reconciliation.operations.map(\.requests) == [7, 0, 13, 9])
    #expect(reconciliation.unknownOperations.isEmpty)
  }

  @Test func `a route no operation reaches and no exclusion explains is compared with zero`() {
    var received = Self.received
    received[RequestRoute.health] = 2
    let reconciliation = MetricsReconciliation(
      counts: Self.counts,
      traffic: Self.traffic,
      excluded: Self.excluded(4),
      received: received
    )
    let health = reconciliation.routes.first { $0.route == RequestRoute.health }
    #expect(health?.implied == nil)
    #expect(health?.agrees == false)
  }

  @Test func `an operation missing from the metrics still has its route compared`() {
    let reconciliation = MetricsReconciliation(
      counts: Self.counts.filter { $0.operation != "Post.FeedQuery" },
      traffic: Self.traffic,
      excluded: Self.excluded(4),
      received: Self.received
    )
    let feed = reconciliation.routes.first { $0.route == RequestRoute.feedPages }
    #expect(feed?.implied == 0)
    #expect(feed?.agrees == false)
  }

  @Test func `the summary table`() {
    let reconciliation = MetricsReconciliation(
      counts: Self.counts,
      traffic: Self.traffic,
      excluded: Self.excluded(4),
      received: Self.received
    )
    let lines = MetricsSummaryTable.render(
      counts: Self.counts,
      reconciliation: reconciliation,
      traffic: Self.traffic
    )
    #expect(
      lines == [
        "OPERATION                   RUNS  OK  FAILED  CANCELLED  RETRIES  JOINS  TIMEOUTS  REJECTED  PAGES  REQUESTS",
        "Post.CreateMutation            3   2       1          0        4      0         0         0      0         7  = runs − joins + retries",
        "Post.DurableCreateMutation     3   3       0          0        0      0         0         0      0         0  = 0: the outbox sends its requests",
        "Post.FeedQuery                 4   4       0          0        2      0         0         0     13        13  = pages",
        "Post.Query                     7   7       0          0        4      2         0         0      0         9  = runs − joins + retries",
        "",
        "ROUTE                              IMPLIED  RECEIVED",
        "GET /posts                              13        13  ✓ Post.FeedQuery",
        "GET /posts/{id}                          9         9  ✓ Post.Query",
        "POST /posts/add                          7         7  ✓ Post.CreateMutation",
        "POST /posts/add + Idempotency-Key        -         4  ✓ left out: the outbox's deliveries, the demo sent 4",
        "total                                   29        33  = 29 from the operations + 4 left out",
      ]
    )
  }

  @Test func `the summary table without a server, and with an operation without a formula`() {
    let lines = MetricsSummaryTable.render(
      counts: [OperationCounts(operation: "Unknown", runs: 1, successes: 1)],
      reconciliation: nil,
      traffic: Self.traffic
    )
    #expect(
      lines == [
        "OPERATION  RUNS  OK  FAILED  CANCELLED  RETRIES  JOINS  TIMEOUTS  REJECTED  PAGES  REQUESTS",
        "Unknown       1   1       0          0        0      0         0         0      0         ?  no formula",
      ]
    )
  }

  @Test func `the summary table counts the rejections`() {
    let counts = [
      OperationCounts(
        operation: "User.Query",
        runs: 8,
        successes: 2,
        failures: 6,
        retries: 3,
        rejections: 6
      )
    ]
    let traffic = [
      OperationTraffic(
        operation: "User.Query",
        route: RequestRoute.user,
        formula: .onePerAdmittedAttempt
      )
    ]
    let reconciliation = MetricsReconciliation(
      counts: counts,
      traffic: traffic,
      excluded: [],
      received: [RequestRoute.user: 5]
    )
    #expect(reconciliation.routes.map(\.agrees) == [true])
    #expect(
      MetricsSummaryTable.render(counts: counts, reconciliation: nil, traffic: traffic) == [
        "OPERATION   RUNS  OK  FAILED  CANCELLED  RETRIES  JOINS  TIMEOUTS  REJECTED  PAGES  REQUESTS",
        "User.Query     8   2       6          0        3      0         0         6      0         5  = runs − joins + retries − rejections",
      ]
    )
  }
}
