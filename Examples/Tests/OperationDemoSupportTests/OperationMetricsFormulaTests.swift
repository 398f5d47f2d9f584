import Operation
import OperationDemoSupport
import Prometheus
import Synchronization
import Testing

/// The library's `OperationMetrics`, recording into a Prometheus registry as the demo's client
/// does, read back by the demo's parser: the formula of a query that sends one request per
/// attempt holds.
@Suite struct `OperationMetrics formula tests` {
  /// Counts the requests a query sends, and fails the first ones.
  final class Server: Sendable {
    private let state: Mutex<(requests: Int, failuresLeft: Int)>

    init(failing failures: Int) {
      self.state = Mutex((0, failures))
    }

    var requests: Int {
      self.state.withLock { $0.requests }
    }

    func receive() throws -> Int {
      try self.state.withLock { state in
        state.requests += 1
        guard state.failuresLeft == 0 else {
          state.failuresLeft -= 1
          throw Refused()
        }
        return state.requests
      }
    }

    struct Refused: Error {}
  }

  struct CountedQuery: QueryRequest {
    let server: Server

    var path: OperationPath { ["counted"] }

    func fetch(
      isolation: isolated (any Actor)?,
      in context: OperationContext,
      with continuation: OperationContinuation<Int, any Error>
    ) async throws -> Int {
      try self.server.receive()
    }
  }

  @Test func `runs minus joins plus retries are the requests of a retried query`() async throws {
    let registry = PrometheusCollectorRegistry()
    var context = OperationContext()
    context.operationMetrics = OperationMetrics(
      factory: PrometheusMetricsFactory(registry: registry)
    )
    // NB: Under a test runner the client's store creator neither waits between retries nor adds
    // retries of its own.
    let client = OperationClient(defaultContext: context)
    let server = Server(failing: 2)
    let store = client.store(for: CountedQuery(server: server).retry(limit: 3))
    _ = try await store.fetch()
    _ = try await store.fetch()

    let counts = OperationCounts.read(from: PrometheusText.samples(in: registry.emitToString()))
    let query = try #require(counts.first)
    #expect(counts.count == 1)
    #expect(query.runs == 2)
    #expect(query.retries == 2)
    #expect(query.joins == 0)
    #expect(query.successes == 2)
    #expect(query.timedRuns == 2)
    #expect(server.requests == 4)
    #expect(RequestFormula.onePerAttempt.requests(for: query) == server.requests)
  }

  @Test func `less the rejections, they are the requests of a query behind a breaker`() async throws
  {
    let registry = PrometheusCollectorRegistry()
    var context = OperationContext()
    context.operationMetrics = OperationMetrics(
      factory: PrometheusMetricsFactory(registry: registry)
    )
    let client = OperationClient(defaultContext: context)
    let server = Server(failing: 2)
    let breaker = CircuitBreaker(
      name: "counted",
      threshold: .consecutiveFailures(2),
      coolDown: .seconds(3_600)
    )
    let store = client.store(
      for: CountedQuery(server: server).circuitBreaker(breaker).retry(limit: 3)
    )
    // NB: Two attempts fail and open the breaker, which refuses the two retries left; the four
    // attempts of the next run are refused too.
    await #expect(throws: CircuitBreakerOpenError.self) { try await store.fetch() }
    await #expect(throws: CircuitBreakerOpenError.self) { try await store.fetch() }

    let counts = OperationCounts.read(from: PrometheusText.samples(in: registry.emitToString()))
    let query = try #require(counts.first)
    #expect(query.runs == 2)
    #expect(query.retries == 6)
    #expect(query.rejections == 6)
    #expect(server.requests == 2)
    #expect(RequestFormula.onePerAdmittedAttempt.requests(for: query) == server.requests)
    #expect(client.snapshot().circuitBreakers.map(\.rejections) == [6])
  }
}
