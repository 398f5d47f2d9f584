import Foundation
import Operation
import OperationSynchronization
import OperationTestSupport
import Testing

#if SwiftOperationMetrics
  import MetricsTestKit
#endif
#if SwiftOperationTracing
  import InMemoryTracing
  import Tracing
#endif

/// The examples of the article "Observing operations in production", against a posts API of
/// their own.
@Suite(.timeLimit(.minutes(1))) struct `Observing operations article tests` {
  #if SwiftOperationMetrics
    @Test func `A Failure With Two Retries Counts One Run, Two Retries And One Failure`() async {
      let api = PostsAPI()
      let metrics = TestMetrics()
      var context = OperationContext()
      context.operationMetrics = OperationMetrics(factory: metrics)
      let client = OperationClient(defaultContext: context)

      api.failNextRequests(3)
      let store = client.store(for: PostQuery(api: api, id: 1).retry(limit: 2))
      _ = try? await store.fetch()

      #expect(metrics.counterTotal(label: "operation_runs_total") == 1)
      #expect(metrics.counterTotal(label: "operation_retries_total") == 2)
      #expect(metrics.counterTotal(label: "operation_failures_total") == 1)
      // NB: The article's rule: runs − joins + retries is the requests sent.
      #expect(api.requestCount == 3)
    }

    @Test func `The Modifier Gives One Operation An Instrument Of Its Own`() async throws {
      let api = PostsAPI()
      let clientMetrics = TestMetrics()
      let metrics = TestMetrics()
      var context = OperationContext()
      context.operationMetrics = OperationMetrics(factory: clientMetrics)
      let client = OperationClient(defaultContext: context)

      let store = client.store(
        for: PostQuery(api: api, id: 1).metrics(OperationMetrics(factory: metrics))
      )
      try await store.fetch()
      #expect(metrics.counterTotal(label: "operation_runs_total") == 1)
      #expect(clientMetrics.counterTotal(label: "operation_runs_total") == 0)
    }
  #endif

  #if SwiftOperationTracing
    @Test func `A Run Is A Child Of The Request That Started It`() async throws {
      let api = PostsAPI()
      let tracer = InMemoryTracer()
      var context = OperationContext()
      context.operationTracing = OperationTracing(tracer: tracer)
      let client = OperationClient(defaultContext: context)

      let request = tracer.startSpan("GET /feed", context: .topLevel)
      _ = try await ServiceContext.withValue(request.context) {
        try await client.store(for: PostQuery(api: api, id: 1)).fetch()
      }
      request.end()

      let run = tracer.finishedSpans.first { $0.operationName == "PostQuery" }
      #expect(run?.parentSpanID == request.spanContext.spanID)
    }
  #endif

  @Test func `The Snapshot Encodes As JSON With ISO 8601 Dates`() async throws {
    let api = PostsAPI()
    let client = OperationClient()
    try await client.store(for: PostQuery(api: api, id: 1)).fetch()

    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    let json = try encoder.encode(client.snapshot())

    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    let snapshot = try decoder.decode(OperationClientSnapshot.self, from: json)
    #expect(snapshot.stores.map(\.phase) == [.success])
    #expect(snapshot.stores.map(\.stateType) == ["QueryState<PostRecord, Error>"])
  }

  @Test func `The Slow Run Log Reports Runs Over Its Threshold`() async throws {
    let api = PostsAPI()
    let lines = ValueRecorder<String>()
    var context = OperationContext()
    context.operationInstruments.append(SlowRunLog(threshold: .zero) { lines.record($0) })
    let client = OperationClient(defaultContext: context)
    let store = client.store(for: PostQuery(api: api, id: 1))
    try await store.fetch()
    #expect(lines.values.count == 1)
    #expect(lines.values.first?.hasSuffix(": success") == true)
    #expect(lines.values.first?.hasPrefix("\(store.path) took ") == true)
  }

  @Test func `The Slow Run Log Stays Quiet Under Its Threshold`() async throws {
    let api = PostsAPI()
    let lines = ValueRecorder<String>()
    var context = OperationContext()
    context.operationInstruments.append(SlowRunLog(threshold: .seconds(3600)) { lines.record($0) })
    let client = OperationClient(defaultContext: context)
    try await client.store(for: PostQuery(api: api, id: 1)).fetch()
    #expect(lines.values.isEmpty)
  }
}

/// A post.
private struct PostRecord: Hashable, Sendable {
  let id: Int
}

/// A posts API that counts its requests and fails the next few on demand.
private final class PostsAPI: Sendable {
  private let state = Lock((requests: 0, failures: 0))

  var requestCount: Int {
    self.state.withLock { $0.requests }
  }

  func failNextRequests(_ count: Int) {
    self.state.withLock { $0.failures = count }
  }

  func post(id: Int) throws -> PostRecord {
    let fails = self.state.withLock { state in
      state.requests += 1
      guard state.failures > 0 else { return false }
      state.failures -= 1
      return true
    }
    if fails {
      throw TestError()
    }
    return PostRecord(id: id)
  }
}

/// The article's query.
private struct PostQuery: QueryRequest, Hashable {
  let api: PostsAPI
  let id: Int

  var path: OperationPath { ["post", self.id] }

  static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id }
  func hash(into hasher: inout Hasher) { hasher.combine(self.id) }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<PostRecord, any Error>
  ) async throws -> PostRecord {
    try self.api.post(id: self.id)
  }
}

/// The article's instrument: logs runs that take longer than a threshold.
private struct SlowRunLog: OperationInstrument {
  let threshold: Duration
  let log: @Sendable (String) -> Void

  func started(_ work: OperationWork) -> (any OperationWorkObservation)? {
    guard case .run = work.kind else { return nil }
    return Observation(path: work.run.path, threshold: self.threshold, log: self.log)
  }

  func record(_ event: OperationInstrumentEvent, in run: OperationRunInfo) {}

  struct Observation: OperationWorkObservation {
    let path: OperationPath
    let threshold: Duration
    let log: @Sendable (String) -> Void

    func ended(_ outcome: OperationRunOutcome, duration: Duration) {
      if duration > self.threshold {
        self.log("\(self.path) took \(duration): \(outcome.name)")
      }
    }
  }
}
