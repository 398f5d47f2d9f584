/// What the library's `OperationMetrics` counted for one group of stores (the `operation`
/// dimension, the operation's type name), read back from the Prometheus text.
public struct OperationCounts: Hashable, Sendable {
  /// The group, such as `Post.FeedQuery`.
  public var operation: String
  /// `operation_runs_total`: store runs started, joins included.
  public var runs: Int
  /// `operation_successes_total`.
  public var successes: Int
  /// `operation_failures_total`, timeouts included.
  public var failures: Int
  /// `operation_cancellations_total`.
  public var cancellations: Int
  /// `operation_retries_total`: retries started by `retry(limit:)`.
  public var retries: Int
  /// `operation_deduplicated_joins_total`: runs that joined a run in flight.
  public var joins: Int
  /// `operation_timeouts_total`.
  public var timeouts: Int
  /// `operation_evictions_total`.
  public var evictions: Int
  /// `operation_pages_total`: pages fetched by paginated requests.
  public var pages: Int
  /// `operation_rejections_total`, over every policy: attempts that a policy (such as an open
  /// circuit breaker) failed at once, without calling the operation.
  public var rejections: Int
  /// The runs that `operation_run_duration_seconds` timed, over every outcome (its `_count`).
  public var timedRuns: Int

  /// Creates the counts of a group.
  ///
  /// - Parameters:
  ///   - operation: The group.
  ///   - runs: Store runs started, joins included.
  ///   - successes: Runs that returned a value.
  ///   - failures: Runs that threw an error other than a cancellation.
  ///   - cancellations: Runs that were cancelled.
  ///   - retries: Retries started by `retry(limit:)`.
  ///   - joins: Runs that joined a run in flight.
  ///   - timeouts: Attempts that `timeout(after:)` ended.
  ///   - evictions: Stores collected or evicted.
  ///   - pages: Pages fetched.
  ///   - rejections: Attempts that a policy failed at once.
  ///   - timedRuns: Runs timed, over every outcome.
  public init(
    operation: String,
    runs: Int = 0,
    successes: Int = 0,
    failures: Int = 0,
    cancellations: Int = 0,
    retries: Int = 0,
    joins: Int = 0,
    timeouts: Int = 0,
    evictions: Int = 0,
    pages: Int = 0,
    rejections: Int = 0,
    timedRuns: Int = 0
  ) {
    self.operation = operation
    self.runs = runs
    self.successes = successes
    self.failures = failures
    self.cancellations = cancellations
    self.retries = retries
    self.joins = joins
    self.timeouts = timeouts
    self.evictions = evictions
    self.pages = pages
    self.rejections = rejections
    self.timedRuns = timedRuns
  }

  /// The counts of every group that the samples hold, sorted by group.
  ///
  /// - Parameters:
  ///   - samples: The samples, such as `PrometheusText.samples(in:)` of `GET /debug/metrics`.
  ///   - prefix: The metrics' label prefix (`OperationMetrics.labelPrefix`).
  /// - Returns: The counts, one per value of the `operation` label.
  public static func read(from samples: [PrometheusSample], prefix: String = "operation")
    -> [OperationCounts]
  {
    var groups = [String: OperationCounts]()
    for sample in samples {
      guard sample.name.hasPrefix(prefix + "_"),
        let field = Self.field(sample.name.dropFirst(prefix.count + 1)),
        let operation = sample.labels["operation"]
      else { continue }
      groups[operation, default: OperationCounts(operation: operation)][keyPath: field] +=
        Int(sample.value)
    }
    return groups.values.sorted { $0.operation < $1.operation }
  }

  /// The field of a metric, by its label without the prefix, such as `runs_total`.
  private static func field(_ name: some StringProtocol) -> WritableKeyPath<OperationCounts, Int>? {
    switch name {
    case "runs_total": \.runs
    case "successes_total": \.successes
    case "failures_total": \.failures
    case "cancellations_total": \.cancellations
    case "retries_total": \.retries
    case "deduplicated_joins_total": \.joins
    case "timeouts_total": \.timeouts
    case "evictions_total": \.evictions
    case "pages_total": \.pages
    case "rejections_total": \.rejections
    case "run_duration_seconds_count": \.timedRuns
    default: nil
    }
  }
}

/// How the requests an operation sends follow from its metrics.
public enum RequestFormula: Hashable, Sendable {
  /// One request per attempt: `runs − joins + retries`. A run that joined a run in flight sends
  /// nothing; a run that did not sends one request, and one more per retry.
  case onePerAttempt
  /// One request per attempt that a policy let through: `runs − joins + retries − rejections`.
  /// An open circuit breaker fails an attempt at once (a run's first attempt or a retry), and the
  /// operation sends nothing.
  case onePerAdmittedAttempt
  /// One request per page fetched: `pages`. The retry wraps the page fetches, so a retried page
  /// is fetched, and counted as a page, again: adding the retries would count it twice.
  case onePerPage
  /// No request of its own: the operation waits for something that sends them outside the
  /// metrics' sight, such as a durable mutation whose outbox delivers it. The text says what.
  case none(String)

  /// The requests that `counts` imply.
  ///
  /// - Parameter counts: The operation's metrics.
  /// - Returns: The number of requests.
  public func requests(for counts: OperationCounts) -> Int {
    switch self {
    case .onePerAttempt: counts.runs - counts.joins + counts.retries
    case .onePerAdmittedAttempt: counts.runs - counts.joins + counts.retries - counts.rejections
    case .onePerPage: counts.pages
    case .none: 0
    }
  }

  /// The formula as the summary prints it, such as `runs − joins + retries`.
  public var text: String {
    switch self {
    case .onePerAttempt: "runs − joins + retries"
    case .onePerAdmittedAttempt: "runs − joins + retries − rejections"
    case .onePerPage: "pages"
    case .none: "0"
    }
  }
}

/// How one group of the metrics sends requests: the route they reach and the formula of their
/// number.
public struct OperationTraffic: Hashable, Sendable {
  /// The group, such as `Post.FeedQuery`.
  public var operation: String
  /// The route of its requests, such as `GET /posts`; `nil` when it sends none.
  public var route: String?
  /// How many requests its metrics imply.
  public var formula: RequestFormula

  /// Describes a group's requests.
  ///
  /// - Parameters:
  ///   - operation: The group.
  ///   - route: The route of its requests; `nil` when it sends none.
  ///   - formula: How many requests its metrics imply.
  public init(operation: String, route: String?, formula: RequestFormula) {
    self.operation = operation
    self.route = route
    self.formula = formula
  }
}

/// A route whose requests the demo sends outside the client's stores, so that no operation's
/// metrics count them.
public struct ExcludedRoute: Hashable, Sendable {
  /// The route, such as `POST /posts/add + Idempotency-Key`.
  public var route: String
  /// What sends them, and why the metrics do not see it.
  public var reason: String
  /// The requests the demo counted itself sending there, or `nil` when it does not count them.
  public var expectedRequests: Int?

  /// Describes an excluded route.
  ///
  /// - Parameters:
  ///   - route: The route.
  ///   - reason: What sends its requests, and why the metrics do not see it.
  ///   - expectedRequests: The requests the demo counted itself sending there, if it counts them.
  public init(route: String, reason: String, expectedRequests: Int?) {
    self.route = route
    self.reason = reason
    self.expectedRequests = expectedRequests
  }
}

/// The requests that the operations' metrics imply, route by route, next to the requests the
/// server counted from the client.
public struct MetricsReconciliation: Hashable, Sendable {
  /// One route.
  public struct Route: Hashable, Sendable {
    /// The route.
    public var route: String
    /// The groups whose requests reach it.
    public var operations: [String]
    /// The requests their metrics imply; `nil` for a route no group reaches.
    public var implied: Int?
    /// The requests the server received on it.
    public var received: Int
    /// Why the route is left out of the metrics, if it is.
    public var excluded: ExcludedRoute?

    /// Whether the route's numbers agree: the implied requests are those received; an excluded
    /// route received what the demo counted sending there (when it counts); a route that is
    /// neither received nothing.
    public var agrees: Bool {
      if let excluded {
        return excluded.expectedRequests.map { $0 == self.received } ?? true
      }
      return (self.implied ?? 0) == self.received
    }
  }

  /// The routes: those the groups reach, those excluded, and any other the server counted, by
  /// name.
  public var routes: [Route]
  /// The groups that the metrics hold and no ``OperationTraffic`` describes.
  public var unknownOperations: [String]
  /// The requests that each described group's metrics imply, in the order of the counts.
  public var operations: [ImpliedRequests]
  /// The store runs the metrics counted, over every group.
  public var totalRuns: Int
  /// The groups with runs that had not ended when the metrics were read (runs less successes,
  /// failures and cancellations), with their number: such a run's requests may not have reached
  /// the server yet.
  public var runsInFlight: [String: Int]

  /// The requests that one group's metrics imply.
  public struct ImpliedRequests: Hashable, Sendable {
    /// The group.
    public var operation: String
    /// The formula.
    public var formula: RequestFormula
    /// The requests.
    public var requests: Int
  }

  /// Compares the metrics with the server's counts.
  ///
  /// - Parameters:
  ///   - counts: The metrics, per group.
  ///   - traffic: How each group sends requests.
  ///   - excluded: The routes of the requests sent outside the client's stores.
  ///   - received: The requests the server received from the client, per route (debug requests
  ///     left out).
  public init(
    counts: [OperationCounts],
    traffic: [OperationTraffic],
    excluded: [ExcludedRoute],
    received: [String: Int]
  ) {
    let trafficByOperation = Dictionary(
      traffic.map { ($0.operation, $0) },
      uniquingKeysWith: { first, _ in first }
    )
    var implied = [String: Int]()
    var operations = [String: [String]]()
    var rows = [ImpliedRequests]()
    var unknown = [String]()
    for group in counts {
      guard let traffic = trafficByOperation[group.operation] else {
        unknown.append(group.operation)
        continue
      }
      let requests = traffic.formula.requests(for: group)
      rows.append(
        ImpliedRequests(operation: group.operation, formula: traffic.formula, requests: requests)
      )
      guard let route = traffic.route else { continue }
      implied[route, default: 0] += requests
      operations[route, default: []].append(group.operation)
    }
    // NB: A described group missing from the metrics implies no request, so a route it reaches
    // is still compared with the server's count.
    for entry in traffic where !counts.contains(where: { $0.operation == entry.operation }) {
      guard let route = entry.route else { continue }
      implied[route, default: 0] += 0
      operations[route, default: []].append(entry.operation)
    }
    let excludedByRoute = Dictionary(
      excluded.map { ($0.route, $0) },
      uniquingKeysWith: { first, _ in first }
    )
    let names = Set(implied.keys).union(received.keys).union(excludedByRoute.keys)
    self.routes = names.sorted().map { name in
      Route(
        route: name,
        operations: operations[name, default: []],
        implied: implied[name],
        received: received[name, default: 0],
        excluded: excludedByRoute[name]
      )
    }
    self.unknownOperations = unknown
    self.operations = rows
    self.totalRuns = counts.reduce(0) { $0 + $1.runs }
    self.runsInFlight = counts.reduce(into: [String: Int]()) { inFlight, group in
      let count = group.runs - group.successes - group.failures - group.cancellations
      if count != 0 { inFlight[group.operation] = count }
    }
  }

  /// The requests the server received from the client, over every route.
  public var totalReceived: Int {
    self.routes.reduce(0) { $0 + $1.received }
  }

  /// The requests received on the excluded routes.
  public var totalExcluded: Int {
    self.routes.reduce(0) { $0 + ($1.excluded == nil ? 0 : $1.received) }
  }

  /// The requests the operations' metrics imply, over every route.
  public var totalImplied: Int {
    self.routes.reduce(0) { $0 + ($1.excluded == nil ? ($1.implied ?? 0) : 0) }
  }
}
