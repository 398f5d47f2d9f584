#if SwiftOperationMetrics
  import Foundation
  import MetricsTestKit
  import Operation
  import OperationTestSupport
  import Testing

  @Suite(.timeLimit(.minutes(1))) struct `OperationMetrics tests` {
    private let metrics = TestMetrics()
    private let events = EventSignal()

    private func client(
      grouping: OperationMetrics.Grouping = .operationType,
      update: (inout OperationContext) -> Void = { _ in }
    ) -> OperationClient {
      var context = OperationContext()
      context.operationMetrics = OperationMetrics(factory: self.metrics, grouping: grouping)
      context.operationInstruments.append(self.events)
      update(&context)
      return OperationClient(defaultContext: context)
    }

    /// The counters of `group` that are not zero, by label.
    private func counts(_ group: String) -> [String: Int64] {
      var counts = [String: Int64]()
      for counter in self.metrics.counters
      where counter.dimensions.contains(where: { $0 == ("operation", group) })
        && counter.totalValue != 0
      {
        counts[counter.label, default: 0] += counter.totalValue
      }
      return counts
    }

    /// How many durations the run timer of `group` recorded for `outcome`.
    private func durationCount(_ group: String, _ outcome: String) -> Int {
      let timer = try? self.metrics.expectTimer(
        "operation_run_duration_seconds",
        [("operation", group), ("outcome", outcome)]
      )
      return timer?.values.count ?? 0
    }

    @Test func `A Successful Run Counts A Run And A Success And Times It`() async throws {
      try await self.client().store(for: TestQuery()).fetch()
      #expect(
        self.counts("TestQuery") == ["operation_runs_total": 1, "operation_successes_total": 1]
      )
      #expect(self.durationCount("TestQuery", "success") == 1)
      #expect(self.durationCount("TestQuery", "failure") == 0)
    }

    @Test func `A Failure With Retries Counts Each Retry And One Failed Run`() async {
      let store = self.client().store(for: FailingQuery().retry(limit: 2))
      await #expect(throws: TestError.self) { try await store.fetch() }
      #expect(
        self.counts("FailingQuery") == [
          "operation_runs_total": 1,
          "operation_retries_total": 2,
          "operation_failures_total": 1,
        ]
      )
      #expect(self.durationCount("FailingQuery", "failure") == 1)
    }

    @Test func `A Circuit Breaker's Transitions Set Its Gauge And Count, And Rejections Count`()
      async throws
    {
      let clock = ManualOperationClock()
      let breaker = CircuitBreaker(name: "upstream", threshold: .consecutiveFailures(1))
      let client = self.client { $0.operationClock = clock }
      let failing = client.store(for: FailingQuery().circuitBreaker(breaker))
      await #expect(throws: TestError.self) { try await failing.fetch() }
      let state = try self.metrics.expectGauge(
        "operation_circuit_breaker_state",
        [("breaker", "upstream")]
      )
      #expect(state.lastValue == 2)
      await #expect(throws: CircuitBreakerOpenError.self) { try await failing.fetch() }
      clock.advance(by: 30)
      try await client.store(for: TestQuery().circuitBreaker(breaker)).fetch()
      #expect(state.lastValue == 0)
      let transitions = try ["open", "half-open", "closed"].map { to in
        try self.metrics.expectCounter(
          "operation_circuit_breaker_transitions_total",
          [("breaker", "upstream"), ("to", to)]
        )
        .totalValue
      }
      #expect(transitions == [1, 1, 1])
      #expect(
        self.counts("FailingQuery")["operation_rejections_total"] == 1
      )
    }

    @Test func `Refused Retries And Rate-Limited Starts Are Counted`() async throws {
      let clock = ManualOperationClock()
      let client = self.client { $0.operationClock = clock }
      let budget = RetryBudget(name: "none", ratio: 0, minimumPerSecond: 0)
      let refused = client.store(for: FailingQuery().retry(limit: 3).retryBudget(budget))
      await #expect(throws: TestError.self) { try await refused.fetch() }
      #expect(self.counts("FailingQuery")["operation_retries_refused_total"] == 1)

      let limiter = RateLimiter(name: "api", capacity: 1, refill: 1)
      let limited = client.store(
        for: TestQuery().rateLimited(by: limiter).delayer(RecordingDelayer())
      )
      try await limited.fetch()
      try await limited.fetch()
      #expect(self.counts("TestQuery")["operation_rate_limit_waits_total"] == 1)
    }

    @Test func `A Run That Joins A Run In Flight Counts A Run And A Join`() async throws {
      let query = GatedQuery()
      let store = self.client().store(for: query.deduplicated())
      let first = Task { try await store.fetch() }
      await query.started.wait()
      let second = Task { try await store.fetch() }
      await self.events.wait(for: .joinedRunInFlight)
      query.gate.open()
      _ = try await (first.value, second.value)
      #expect(
        self.counts("GatedQuery") == [
          "operation_runs_total": 2,
          "operation_deduplicated_joins_total": 1,
          "operation_successes_total": 2,
        ]
      )
      #expect(query.fetchCount.value == 1)
    }

    @Test func `A Cancelled Run Counts A Cancellation`() async {
      let query = GatedQuery()
      let store = self.client().store(for: query)
      let run = Task { try await store.fetch() }
      await query.started.wait()
      run.cancel()
      query.gate.open()
      _ = try? await run.value
      #expect(
        self.counts("GatedQuery") == [
          "operation_runs_total": 1,
          "operation_cancellations_total": 1,
        ]
      )
      #expect(self.durationCount("GatedQuery", "cancelled") == 1)
    }

    @Test func `A Timed Out Run Counts A Timeout And A Failure`() async {
      let delayer = ManualDelayer()
      let query = GatedQuery()
      let store = self.client().store(for: query.timeout(after: .seconds(1)).delayer(delayer))
      let run = Task { try await store.fetch() }
      await delayer.waitForDelays(count: 1)
      delayer.resumeAll()
      await #expect(throws: OperationTimeoutError.self) { try await run.value }
      query.gate.open()
      #expect(
        self.counts("GatedQuery") == [
          "operation_runs_total": 1,
          "operation_timeouts_total": 1,
          "operation_failures_total": 1,
        ]
      )
      #expect(self.durationCount("GatedQuery", "timeout") == 1)
    }

    @Test func `A Timeout Inside A Retry Counts Each Timed Out Attempt`() async throws {
      let delayer = ManualDelayer()
      let query = GatedQuery()
      let store = self.client().store(
        for: query.timeout(after: .seconds(1)).retry(limit: 1).delayer(delayer)
      )
      let run = Task { try await store.fetch() }
      // NB: The first attempt's timer fires. Then the retry's backoff waits; once it ends, the
      // open gate lets the second attempt return before its own timer.
      await delayer.waitForDelays(count: 1)
      delayer.resumeNext()
      await delayer.waitForDelays(count: 2)
      query.gate.open()
      delayer.resumeNext()
      _ = try await run.value
      #expect(
        self.counts("GatedQuery") == [
          "operation_runs_total": 1,
          "operation_timeouts_total": 1,
          "operation_retries_total": 1,
          "operation_successes_total": 1,
        ]
      )
    }

    @Test func `Each Page Fetched Is Counted`() async throws {
      let store = self.client().store(for: TestPaginated([0: "zero", 1: "one"]))
      try await store.fetchNextPage()
      try await store.fetchNextPage()
      #expect(
        self.counts("TestPaginated") == [
          "operation_runs_total": 2,
          "operation_pages_total": 2,
          "operation_successes_total": 2,
        ]
      )
    }

    @Test func `A Collected Store Counts An Eviction`() async {
      let delayer = ManualDelayer()
      let client = self.client { context in
        context.collectionDelay = .seconds(1)
        context.collectionDelayer = delayer
        // NB: A clock that does not move leaves the end of the delay to the delayer.
        context.operationClock = ManualOperationClock()
      }
      _ = client.store(for: TestQuery())
      await delayer.waitForDelays(count: 1)
      delayer.resumeAll()
      await self.events.wait(for: .evicted)
      #expect(self.counts("TestQuery") == ["operation_evictions_total": 1])
    }

    @Test func `Grouping By Path Prefix Puts Stores Of One Prefix Together`() async throws {
      let client = self.client(grouping: .pathPrefix(1))
      try await client.store(for: PathQuery(path: ["posts", 1])).fetch()
      try await client.store(for: PathQuery(path: ["posts", 2])).fetch()
      try await client.store(for: PathQuery(path: ["users", 1])).fetch()
      #expect(self.counts("posts")["operation_runs_total"] == 2)
      #expect(self.counts("users")["operation_runs_total"] == 1)
    }

    @Test func `A Custom Grouping And Label Prefix Name The Metrics`() async throws {
      var context = OperationContext()
      context.operationMetrics = OperationMetrics(
        factory: self.metrics,
        labelPrefix: "app_requests",
        grouping: .custom { _ in "all" }
      )
      try await OperationClient(defaultContext: context).store(for: TestQuery()).fetch()
      #expect(
        self.counts("all") == ["app_requests_runs_total": 1, "app_requests_successes_total": 1]
      )
    }

    @Test func `Setting The Switch Replaces The Instrument And Nil Removes It`() {
      var context = OperationContext()
      let first = OperationMetrics(factory: self.metrics)
      let second = OperationMetrics(factory: self.metrics)
      context.operationMetrics = first
      context.operationMetrics = second
      #expect(context.operationInstruments.count == 1)
      #expect(context.operationMetrics === second)
      context.operationMetrics = nil
      #expect(context.operationInstruments.isEmpty)
      #expect(context.operationMetrics == nil)
    }

    @Test func `The Modifier Replaces The Client's Instrument For One Operation`() async throws {
      let own = TestMetrics()
      let client = self.client()
      try await client.store(for: TestQuery().metrics(OperationMetrics(factory: own))).fetch()
      #expect(self.counts("TestQuery").isEmpty)
      #expect(own.counterTotal(label: "operation_runs_total") == 1)
    }

    @Test func `The Modifier Counts One Operation Of A Client Without Metrics`() async throws {
      let client = OperationClient()
      try await client.store(for: TestQuery().metrics(OperationMetrics(factory: self.metrics)))
        .fetch()
      _ = try? await client.store(for: FailingQuery()).fetch()
      #expect(
        self.counts("TestQuery") == ["operation_runs_total": 1, "operation_successes_total": 1]
      )
      #expect(self.counts("FailingQuery").isEmpty)
    }
  }

  /// A query whose path the test chooses.
  private struct PathQuery: QueryRequest {
    let path: OperationPath

    func fetch(
      isolation: isolated (any Actor)?,
      in context: OperationContext,
      with continuation: OperationContinuation<Int, any Error>
    ) async throws -> Int {
      1
    }
  }
#endif
