#if SwiftOperationTracing
  import Foundation
  import InMemoryTracing
  import Operation
  import OperationTestSupport
  import Testing
  import Tracing

  @Suite(.timeLimit(.minutes(1))) struct `OperationTracing tests` {
    private let tracer = InMemoryTracer()
    private let events = EventSignal()

    private func client() -> OperationClient {
      var context = OperationContext()
      context.operationTracing = OperationTracing(tracer: self.tracer)
      context.operationInstruments.append(self.events)
      return OperationClient(defaultContext: context)
    }

    private func spans(named name: String) -> [FinishedInMemorySpan] {
      self.tracer.finishedSpans.filter { $0.operationName == name }
    }

    @Test func `A Successful Run Is One Span With Its Path, Type And Outcome`() async throws {
      let store = self.client().store(for: TestQuery())
      try await store.fetch()
      let spans = self.tracer.finishedSpans
      try #require(spans.count == 1)
      let span = spans[0]
      #expect(span.operationName == "TestQuery")
      #expect(span.parentSpanID == nil)
      #expect(span.attributes.get("operation.path") == .string(store.path.description))
      #expect(span.attributes.get("operation.type") == .string("TestQuery"))
      #expect(span.attributes.get("operation.outcome") == .string("success"))
      #expect(span.status == nil)
      #expect(span.errors.isEmpty)
      #expect(self.tracer.activeSpans.isEmpty)
    }

    @Test func `A Run Is A Child Of The Caller's Span`() async throws {
      let store = self.client().store(for: TestQuery())
      let parent = self.tracer.startSpan("request", context: .topLevel)
      _ = try await ServiceContext.withValue(parent.context) {
        try await store.fetch()
      }
      parent.end()
      let run = try #require(self.spans(named: "TestQuery").first)
      #expect(run.parentSpanID == parent.spanContext.spanID)
      #expect(run.traceID == parent.spanContext.traceID)
    }

    @Test func `The Operation's Own Spans Are Children Of The Run's Span`() async throws {
      let query = SpanningQuery(tracer: self.tracer)
      try await self.client().store(for: query).fetch()
      let run = try #require(self.spans(named: "SpanningQuery").first)
      let own = try #require(self.spans(named: "GET /posts").first)
      #expect(own.parentSpanID == run.spanID)
    }

    @Test func `A Failure With Retries Has A Span Per Attempt Inside The Run`() async throws {
      let store = self.client().store(for: FailingQuery().retry(limit: 2))
      await #expect(throws: TestError.self) { try await store.fetch() }
      let run = try #require(self.spans(named: "FailingQuery").first)
      let attempts = self.spans(named: "FailingQuery attempt")
      #expect(
        attempts.map { $0.attributes.get("operation.attempt") } == [
          .int64(1), .int64(2), .int64(3),
        ]
      )
      #expect(attempts.allSatisfy { $0.parentSpanID == run.spanID })
      #expect(attempts.allSatisfy { $0.attributes.get("operation.outcome") == .string("failure") })
      #expect(attempts.allSatisfy { $0.errors.count == 1 && $0.status?.code == .error })
      #expect(run.attributes.get("operation.outcome") == .string("failure"))
      #expect(run.status?.code == .error)
      #expect(run.errors.map { $0.error is TestError } == [true])
      #expect(run.events.map(\.name) == ["operation.retried", "operation.retried"])
      #expect(
        run.events.map { $0.attributes.get("operation.attempt") } == [.int64(2), .int64(3)]
      )
      #expect(self.tracer.finishedSpans.count == 4)
    }

    @Test func `A Run That Joins A Run In Flight Has A Join Event`() async throws {
      let query = GatedQuery()
      let store = self.client().store(for: query.deduplicated())
      let first = Task { try await store.fetch() }
      await query.started.wait()
      let second = Task { try await store.fetch() }
      await self.events.wait(for: .joinedRunInFlight)
      query.gate.open()
      _ = try await (first.value, second.value)
      let runs = self.spans(named: "GatedQuery")
      #expect(runs.count == 2)
      #expect(
        runs.map { $0.events.map(\.name) }.sorted { $0.count < $1.count } == [
          [], ["operation.joined"],
        ]
      )
      #expect(runs.allSatisfy { $0.attributes.get("operation.outcome") == .string("success") })
    }

    @Test func `A Cancelled Run Ends Its Span Cancelled Without An Error`() async throws {
      let query = GatedQuery()
      let store = self.client().store(for: query)
      let run = Task { try await store.fetch() }
      await query.started.wait()
      run.cancel()
      query.gate.open()
      _ = try? await run.value
      let span = try #require(self.spans(named: "GatedQuery").first)
      #expect(span.attributes.get("operation.outcome") == .string("cancelled"))
      #expect(span.status == nil)
      #expect(span.errors.isEmpty)
    }

    @Test func `A Timed Out Run Ends Its Span With An Error Status And A Timeout Event`()
      async throws
    {
      let delayer = ManualDelayer()
      let query = GatedQuery()
      let store = self.client().store(for: query.timeout(after: .seconds(1)).delayer(delayer))
      let run = Task { try await store.fetch() }
      await delayer.waitForDelays(count: 1)
      delayer.resumeAll()
      await #expect(throws: OperationTimeoutError.self) { try await run.value }
      query.gate.open()
      let span = try #require(self.spans(named: "GatedQuery").first)
      #expect(span.attributes.get("operation.outcome") == .string("timeout"))
      #expect(span.status?.code == .error)
      #expect(span.status?.message == "timed out")
      #expect(span.events.map(\.name) == ["operation.timed_out"])
    }

    @Test func `Each Page Is A Span Inside Its Run`() async throws {
      let store = self.client().store(for: TestPaginated([0: "zero", 1: "one"]))
      try await store.fetchNextPage()
      try await store.fetchNextPage()
      let runs = self.spans(named: "TestPaginated")
      let pages = self.spans(named: "TestPaginated page")
      #expect(runs.count == 2)
      #expect(pages.map { $0.attributes.get("operation.page") } == [.string("0"), .string("1")])
      #expect(pages.map(\.parentSpanID) == runs.map(\.spanID))
    }

    @Test func `The Modifier Traces One Operation Of A Client Without Tracing`() async throws {
      let client = OperationClient()
      try await client.store(for: TestQuery().traced(OperationTracing(tracer: self.tracer)))
        .fetch()
      _ = try? await client.store(for: FailingQuery()).fetch()
      #expect(self.tracer.finishedSpans.map(\.operationName) == ["TestQuery"])
    }

    @Test func `Setting The Switch Replaces The Instrument And Nil Removes It`() {
      var context = OperationContext()
      context.operationTracing = OperationTracing(tracer: self.tracer)
      context.operationTracing = OperationTracing(tracer: self.tracer)
      #expect(context.operationInstruments.count == 1)
      context.operationTracing = nil
      #expect(context.operationInstruments.isEmpty)
    }
  }

  /// A query that makes a span of its own, as an instrumented HTTP client would.
  private struct SpanningQuery: QueryRequest {
    let tracer: InMemoryTracer

    var path: OperationPath {
      ["spanning-query"]
    }

    func fetch(
      isolation: isolated (any Actor)?,
      in context: OperationContext,
      with continuation: OperationContinuation<Int, any Error>
    ) async throws -> Int {
      let span = self.tracer.startSpan("GET /posts", context: ServiceContext.current ?? .topLevel)
      span.end()
      return 1
    }
  }
#endif
