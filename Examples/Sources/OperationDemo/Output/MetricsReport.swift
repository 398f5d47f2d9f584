import Foundation
import Operation
import OperationDemoSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The end of the demo: the client's metrics in Prometheus' text format, a summary per operation
/// with the requests they imply, and the checks that `GET /debug/metrics` serves them and that
/// they agree with the requests the server received.
struct MetricsReport {
  let metrics: DemoMetrics
  let baseURL: URL

  /// Prints the metrics and the summary, and records the checks (with the embedded server only:
  /// another server's counts cannot be read).
  func show(_ env: DemoEnvironment) async {
    let terminal = env.terminal
    var text = self.metrics.text()
    var source = "the registry"
    if env.server != nil {
      // NB: Read over HTTP, as a Prometheus server would scrape it; the registry's own text,
      // read once the answer is in, is what the endpoint must have served.
      let served = await self.fetch()
      let registry = self.metrics.text()
      env.checks.record(
        .metricsEndpointServes(
          served: try? served.get(),
          problem: served.failureDescription,
          registry: registry
        )
      )
      if let served = try? served.get() {
        text = served
        source = "GET \(DebugEndpoint.metricsPath)"
      } else {
        text = registry
      }
    }
    let prefix = self.metrics.instrument.labelPrefix
    terminal.line()
    terminal.line(
      "Metrics (OperationMetrics on a PrometheusCollectorRegistry, from \(source); histogram "
        + "buckets and the timers of outcomes that never happened are left out of this print)"
    )
    for line in PrometheusText.excerpt(of: text, prefix: "\(prefix)_") {
      terminal.line("   \(line)")
    }
    let counts = OperationCounts.read(from: PrometheusText.samples(in: text), prefix: prefix)
    let reconciliation = env.server.map { server in
      MetricsReconciliation(
        counts: counts,
        traffic: DemoMetrics.traffic,
        excluded: DemoMetrics.excludedRoutes(sentOutsideStores: env.requestsOutsideStores(on:)),
        received: server.requestCountsByRoute
      )
    }
    terminal.line()
    terminal.line(
      reconciliation == nil
        ? "Metrics summary (requests: those the metrics imply; --base-url: no server count)"
        : "Metrics summary (requests: those the metrics imply, next to the server's count)"
    )
    let table = MetricsSummaryTable.render(
      counts: counts,
      reconciliation: reconciliation,
      traffic: DemoMetrics.traffic
    )
    for line in table {
      terminal.line(line.isEmpty ? "" : "   \(line)")
    }
    if let reconciliation {
      env.checks.record(.metricsAgreeWithServer(reconciliation))
    }
  }

  /// Fetches `GET /debug/metrics` with a URL session of its own, so that the fetch is not among
  /// the client's requests (the server leaves `/debug/*` out of its counts too).
  private func fetch() async -> Result<String, FetchError> {
    let url = self.baseURL.appending(path: String(DebugEndpoint.metricsPath.dropFirst()))
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.timeoutIntervalForRequest = 5
    let session = URLSession(configuration: configuration)
    defer { session.finishTasksAndInvalidate() }
    do {
      let (data, response) = try await session.data(for: URLRequest(url: url))
      let status = (response as? HTTPURLResponse)?.statusCode ?? 0
      guard status == 200 else { return .failure(FetchError(reason: "HTTP \(status)")) }
      return .success(String(decoding: data, as: UTF8.self))
    } catch {
      return .failure(FetchError(reason: "\(error)"))
    }
  }

  /// Why `GET /debug/metrics` served no text.
  struct FetchError: Error {
    let reason: String
  }
}

extension Result where Failure == MetricsReport.FetchError {
  fileprivate var failureDescription: String? {
    guard case .failure(let error) = self else { return nil }
    return error.reason
  }
}
