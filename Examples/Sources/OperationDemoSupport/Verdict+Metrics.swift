// The checks of the client's metrics (`OperationMetrics` on a Prometheus registry): what
// `GET /debug/metrics` serves, and whether the requests the metrics imply are those the server
// received. Each one fails on empty input: metrics that counted nothing, or a server that received
// nothing, cannot agree by accident.

extension Verdict {
  /// Checks that the requests the operations' metrics imply are the requests the server received
  /// from the client, on every route and in total.
  ///
  /// It fails when the server received no request, when the metrics counted no run or imply no
  /// request, when a group of the metrics has no formula or runs that have not ended (whose
  /// requests may still be on their way), and when any route disagrees: a route
  /// that operations reach must have received what their metrics imply, an excluded route what
  /// the demo counted sending there, and any other route nothing.
  ///
  /// - Parameter reconciliation: The metrics next to the server's counts.
  /// - Returns: The verdict.
  public static func metricsAgreeWithServer(_ reconciliation: MetricsReconciliation) -> Verdict {
    let prefix = "metrics:"
    guard reconciliation.totalReceived > 0 else {
      return Verdict(
        passed: false,
        message: "\(prefix) the server received no request from the client, so nothing shows "
          + "that the metrics count what was sent"
      )
    }
    guard reconciliation.totalRuns > 0 else {
      return Verdict(
        passed: false,
        message: "\(prefix) the metrics counted no run, while the server received "
          + "\(reconciliation.totalReceived) request(s)"
      )
    }
    guard reconciliation.unknownOperations.isEmpty else {
      return Verdict(
        passed: false,
        message: "\(prefix) no request formula for "
          + reconciliation.unknownOperations.joined(separator: ", ")
          + ", so the requests they sent cannot be told from their metrics"
      )
    }
    guard reconciliation.runsInFlight.isEmpty else {
      let runs = reconciliation.runsInFlight.sorted { $0.key < $1.key }
        .map { "\($0.value) of \($0.key)" }
      return Verdict(
        passed: false,
        message: "\(prefix) run(s) had not ended when the metrics were read ("
          + runs.joined(separator: ", ")
          + "), so their requests may not have reached the server yet"
      )
    }
    guard reconciliation.totalImplied > 0 else {
      return Verdict(
        passed: false,
        message: "\(prefix) the operations' metrics imply no request, while the server received "
          + "\(reconciliation.totalReceived)"
      )
    }
    let disagreements = reconciliation.routes.filter { !$0.agrees }.map(Self.disagreement)
    guard disagreements.isEmpty else {
      return Verdict(
        passed: false,
        message: "\(prefix) the metrics and the server disagree: "
          + disagreements.joined(separator: "; ")
      )
    }
    let compared = reconciliation.routes.filter { $0.excluded == nil }
      .map { "\($0.route) \($0.implied ?? 0)" }
    return Verdict(
      passed: true,
      message: "\(prefix) the operations' metrics imply \(reconciliation.totalImplied) "
        + "request(s), as many as the server received from them (\(reconciliation.totalReceived) "
        + "received − \(reconciliation.totalExcluded) sent outside the stores); per route: "
        + compared.joined(separator: ", ")
    )
  }

  private static func disagreement(_ route: MetricsReconciliation.Route) -> String {
    if let excluded = route.excluded {
      return "\(route.route) (sent outside the stores: \(excluded.reason)) received "
        + "\(route.received) request(s), the demo sent \(excluded.expectedRequests ?? 0)"
    }
    guard let implied = route.implied else {
      return "\(route.route) received \(route.received) request(s) that no operation's metrics "
        + "account for and no exclusion explains"
    }
    return "\(route.route) received \(route.received) request(s), the metrics of "
      + route.operations.joined(separator: ", ") + " imply \(implied)"
  }

  /// Checks that `GET /debug/metrics` served the client's metrics: the operations' counts in the
  /// text it served are those of the registry.
  ///
  /// It fails without a text, and when the text holds no operation's metrics.
  ///
  /// - Parameters:
  ///   - served: The text the endpoint served, or `nil` when it served none.
  ///   - problem: Why there is no text, such as `"HTTP 404"`.
  ///   - registry: The registry's own text, read when the endpoint answered.
  ///   - prefix: The metrics' label prefix.
  /// - Returns: The verdict.
  public static func metricsEndpointServes(
    served: String?,
    problem: String? = nil,
    registry: String,
    prefix: String = "operation"
  ) -> Verdict {
    let name = "metrics: \(DebugEndpoint.metricsPath)"
    guard let served else {
      return Verdict(
        passed: false,
        message: "\(name) served no metrics (\(problem ?? "no answer"))"
      )
    }
    let servedCounts = OperationCounts.read(
      from: PrometheusText.samples(in: served),
      prefix: prefix
    )
    guard !servedCounts.isEmpty else {
      return Verdict(
        passed: false,
        message: "\(name) served no \(prefix)_* series, so it does not show the client's metrics"
      )
    }
    let expected = OperationCounts.read(
      from: PrometheusText.samples(in: registry),
      prefix: prefix
    )
    guard servedCounts == expected else {
      let servedNames = servedCounts.map(\.operation).joined(separator: ", ")
      return Verdict(
        passed: false,
        message: "\(name) served counts that are not the registry's (served: \(servedNames); "
          + "registry: \(expected.map(\.operation).joined(separator: ", ")))"
      )
    }
    return Verdict(
      passed: true,
      message: "\(name) served the client's metrics in Prometheus' text format: "
        + "\(servedCounts.count) operation group(s), the registry's counts"
    )
  }
}
