#if SwiftOperationMetrics
  public import CoreMetrics
  import OperationSynchronization

  // MARK: - Metrics

  /// An ``OperationInstrument`` that counts what operations do and times their runs through
  /// swift-metrics, for whichever backend the app bootstraps (Prometheus, StatsD, OpenTelemetry).
  ///
  /// Available with the `SwiftOperationMetrics` package trait.
  ///
  /// Turn it on for every store of a client, or for one operation:
  ///
  /// ```swift
  /// var context = OperationContext()
  /// context.operationMetrics = OperationMetrics()
  /// let client = OperationClient(defaultContext: context)
  ///
  /// let store = client.store(for: PostQuery(id: 1).metrics())
  /// ```
  ///
  /// Every metric has the dimension `operation`, the group its store belongs to (see
  /// ``Grouping``), and a label that starts with ``labelPrefix`` (`operation` by default):
  ///
  /// | Label | Kind | Counts |
  /// |---|---|---|
  /// | `operation_runs_total` | counter | store runs started, joins included |
  /// | `operation_successes_total` | counter | runs that returned a value |
  /// | `operation_failures_total` | counter | runs that threw an error other than a cancellation (timeouts included) |
  /// | `operation_cancellations_total` | counter | runs that were cancelled |
  /// | `operation_retries_total` | counter | retries started by `retry(limit:)` |
  /// | `operation_deduplicated_joins_total` | counter | runs that joined a run in flight |
  /// | `operation_timeouts_total` | counter | attempts that `timeout(after:)` ended |
  /// | `operation_evictions_total` | counter | stores collected or evicted under memory pressure |
  /// | `operation_pages_total` | counter | pages fetched by paginated requests |
  /// | `operation_persistence_write_failures_total` | counter | values of persisted stores that could not be written to their cache (unencodable, or the storage failed) |
  /// | `operation_run_duration_seconds` | timer | run durations, with the dimension `outcome` (`success`, `failure`, `cancelled`, `timeout`) |
  /// | `operation_retries_refused_total` | counter | retries that a ``RetryBudget`` refused |
  /// | `operation_rejections_total` | counter | runs failed at once by a policy, with the dimension `policy` (the breaker's, limiter's or bulkhead's name) |
  /// | `operation_rate_limit_waits_total` | counter | starts that a ``RateLimiter`` delayed |
  ///
  /// Circuit breakers have series of their own, with the dimension `breaker` (its name) rather
  /// than `operation`:
  ///
  /// | Label | Kind | Records |
  /// |---|---|---|
  /// | `operation_circuit_breaker_state` | gauge | 0 closed, 1 half-open, 2 open, from its last transition |
  /// | `operation_circuit_breaker_transitions_total` | counter | transitions, with the dimension `to` (`closed`, `half-open`, `open`) |
  ///
  /// A finished run counts once as a success, a failure or a cancellation, so runs in flight are
  /// the runs less those three. The operation's own requests are the runs less the joins plus the
  /// retries, for an operation that sends one request per attempt.
  ///
  /// The instrument makes each group's metrics once and keeps them, so a run costs a dictionary
  /// lookup and the backend's own increments.
  public final class OperationMetrics: OperationInstrument {
    /// How stores are grouped into the `operation` dimension.
    ///
    /// Keep the number of groups small: every group is a series in the backend. Paths usually
    /// hold identifiers, so ``pathPrefix(_:)`` should stop before them.
    public struct Grouping: Sendable {
      let group: @Sendable (OperationRunInfo) -> String

      /// By the operation's type, such as `PostQuery`, without its modifiers; the default.
      ///
      /// A store that had no instruments when it was created has no type name, and is grouped
      /// by the first element of its path.
      public static var operationType: Self {
        Self { $0.operationTypeName ?? Self.prefix(of: $0.path, count: 1) }
      }

      /// By the first `count` elements of the store's path, joined with `/`.
      ///
      /// - Parameter count: How many elements of the path name the group.
      /// - Returns: The grouping.
      public static func pathPrefix(_ count: Int) -> Self {
        Self { Self.prefix(of: $0.path, count: count) }
      }

      /// By a name of your choice.
      ///
      /// - Parameter group: The group of a run.
      /// - Returns: The grouping.
      public static func custom(_ group: @escaping @Sendable (OperationRunInfo) -> String) -> Self {
        Self(group: group)
      }

      private static func prefix(of path: OperationPath, count: Int) -> String {
        let elements = path.prefix(max(count, 0)).map { "\($0.base)" }
        return elements.isEmpty ? "unknown" : elements.joined(separator: "/")
      }
    }

    /// The first part of every metric's label.
    public let labelPrefix: String

    private let factory: any MetricsFactory
    private let grouping: Grouping
    private let groups = Lock<[String: GroupMetrics]>([:])
    private let labelled = Lock<[LabelledKey: LabelledMetric]>([:])

    /// Creates an instrument.
    ///
    /// - Parameters:
    ///   - factory: The backend; the one the app bootstrapped by default.
    ///   - labelPrefix: The first part of every label.
    ///   - grouping: How stores are grouped into the `operation` dimension.
    public init(
      factory: any MetricsFactory = MetricsSystem.factory,
      labelPrefix: String = "operation",
      grouping: Grouping = .operationType
    ) {
      self.factory = factory
      self.labelPrefix = labelPrefix
      self.grouping = grouping
    }

    /// Counts a run or a page and, for a run, times it.
    public func started(_ work: OperationWork) -> (any OperationWorkObservation)? {
      switch work.kind {
      case .run:
        let metrics = self.metrics(for: work.run)
        metrics.runs.increment()
        return RunObservation(metrics: metrics)
      case .page:
        self.metrics(for: work.run).pages.increment()
        return nil
      case .attempt:
        return nil
      }
    }

    /// Counts a retry, a join, a timeout, an eviction, a failed write of a persisted value, a
    /// refused retry, a rejection or a wait of a policy, and records a breaker's transition.
    public func record(_ event: OperationInstrumentEvent, in run: OperationRunInfo) {
      let metrics = self.metrics(for: run)
      switch event {
      case .retried: metrics.retries.increment()
      case .joinedRunInFlight: metrics.joins.increment()
      case .timedOut: metrics.timeouts.increment()
      case .evicted: metrics.evictions.increment()
      case .persistenceWriteFailed: metrics.persistenceWriteFailures.increment()
      case .retryRefusedByBudget: metrics.retriesRefused.increment()
      case .rateLimited: metrics.rateLimitWaits.increment()
      case .rejectedByCircuitBreaker(let policy), .rejectedWhenFull(let policy):
        self.counter(
          "rejections",
          dimensions: [("operation", self.grouping.group(run)), ("policy", policy)]
        )
        .increment()
      case .circuitBreakerTransition(let breaker, _, let to):
        let value: Int64 =
          switch to {
          case .closed: 0
          case .halfOpen: 1
          case .open: 2
          }
        self.gauge("circuit_breaker_state", dimensions: [("breaker", breaker)]).record(value)
        self.counter(
          "circuit_breaker_transitions",
          dimensions: [("breaker", breaker), ("to", to.rawValue)]
        )
        .increment()
      }
    }

    private struct LabelledKey: Hashable {
      let name: String
      let dimensions: [String]
    }

    private enum LabelledMetric: Sendable {
      case counter(Counter)
      case gauge(Gauge)
    }

    /// The counter `<prefix>_<name>_total` with `dimensions`, made once.
    private func counter(_ name: String, dimensions: [(String, String)]) -> Counter {
      let metric = self.labelled(name, dimensions) {
        .counter(
          Counter(
            label: "\(self.labelPrefix)_\(name)_total",
            dimensions: dimensions,
            factory: self.factory
          )
        )
      }
      guard case .counter(let counter) = metric else { preconditionFailure("A counter's key") }
      return counter
    }

    /// The gauge `<prefix>_<name>` with `dimensions`, made once.
    private func gauge(_ name: String, dimensions: [(String, String)]) -> Gauge {
      let metric = self.labelled(name, dimensions) {
        .gauge(
          Gauge(label: "\(self.labelPrefix)_\(name)", dimensions: dimensions, factory: self.factory)
        )
      }
      guard case .gauge(let gauge) = metric else { preconditionFailure("A gauge's key") }
      return gauge
    }

    private func labelled(
      _ name: String,
      _ dimensions: [(String, String)],
      make: () -> LabelledMetric
    ) -> LabelledMetric {
      let key = LabelledKey(name: name, dimensions: dimensions.flatMap { [$0.0, $0.1] })
      if let metric = self.labelled.withLock({ $0[key] }) {
        return metric
      }
      // NB: Made outside the lock, as the groups' metrics are: a factory is the app's code.
      let metric = make()
      return self.labelled.withLock { metrics in
        if let existing = metrics[key] { return existing }
        metrics[key] = metric
        return metric
      }
    }

    private func metrics(for run: OperationRunInfo) -> GroupMetrics {
      let group = self.grouping.group(run)
      if let metrics = self.groups.withLock({ $0[group] }) {
        return metrics
      }
      // NB: Made outside the lock: a factory is the app's code. Two runs of a new group may both
      // make them; the first stored wins, and backends hand out the same series for one key.
      let metrics = GroupMetrics(group: group, prefix: self.labelPrefix, factory: self.factory)
      return self.groups.withLock { groups in
        if let existing = groups[group] { return existing }
        groups[group] = metrics
        return metrics
      }
    }
  }

  /// The metrics of one group of stores (a class, so that a run retains one reference, not 13).
  private final class GroupMetrics: Sendable {
    let runs: Counter
    let successes: Counter
    let failures: Counter
    let cancellations: Counter
    let retries: Counter
    let joins: Counter
    let timeouts: Counter
    let evictions: Counter
    let persistenceWriteFailures: Counter
    let pages: Counter
    let retriesRefused: Counter
    let rateLimitWaits: Counter
    let succeededDuration: Timer
    let failedDuration: Timer
    let cancelledDuration: Timer
    let timedOutDuration: Timer

    init(group: String, prefix: String, factory: any MetricsFactory) {
      let dimensions = [("operation", group)]
      func counter(_ name: String) -> Counter {
        Counter(label: "\(prefix)_\(name)_total", dimensions: dimensions, factory: factory)
      }
      func timer(_ outcome: String) -> Timer {
        Timer(
          label: "\(prefix)_run_duration_seconds",
          dimensions: dimensions + [("outcome", outcome)],
          factory: factory
        )
      }
      self.runs = counter("runs")
      self.successes = counter("successes")
      self.failures = counter("failures")
      self.cancellations = counter("cancellations")
      self.retries = counter("retries")
      self.joins = counter("deduplicated_joins")
      self.timeouts = counter("timeouts")
      self.evictions = counter("evictions")
      self.persistenceWriteFailures = counter("persistence_write_failures")
      self.pages = counter("pages")
      self.retriesRefused = counter("retries_refused")
      self.rateLimitWaits = counter("rate_limit_waits")
      self.succeededDuration = timer("success")
      self.failedDuration = timer("failure")
      self.cancelledDuration = timer("cancelled")
      self.timedOutDuration = timer("timeout")
    }
  }

  /// Counts how a run ended and records its duration.
  private struct RunObservation: OperationWorkObservation {
    let metrics: GroupMetrics

    func ended(_ outcome: OperationRunOutcome, duration: Duration) {
      let timer: Timer
      switch outcome {
      case .succeeded:
        self.metrics.successes.increment()
        timer = self.metrics.succeededDuration
      case .failed:
        self.metrics.failures.increment()
        timer = self.metrics.failedDuration
      case .timedOut:
        self.metrics.failures.increment()
        timer = self.metrics.timedOutDuration
      case .cancelled:
        self.metrics.cancellations.increment()
        timer = self.metrics.cancelledDuration
      }
      let (seconds, attoseconds) = duration.components
      timer.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
  }

  // MARK: - Switches

  extension OperationContext {
    /// The metrics instrument of this context, if any: set it on a client's default context to
    /// record metrics for every store of the client, or to `nil` to stop.
    ///
    /// Setting it replaces any ``OperationMetrics`` among ``operationInstruments``, so a store
    /// never counts twice. Available with the `SwiftOperationMetrics` package trait.
    public var operationMetrics: OperationMetrics? {
      get { self.instrument(of: OperationMetrics.self) }
      set { self.replaceInstruments(of: OperationMetrics.self, with: newValue) }
    }
  }

  extension OperationRequest {
    /// Records this operation's metrics with `metrics`, in place of the client's; see
    /// ``OperationMetrics``.
    ///
    /// Available with the `SwiftOperationMetrics` package trait.
    ///
    /// - Parameter metrics: The instrument; by default, one on the bootstrapped backend.
    /// - Returns: The modified operation.
    public func metrics(
      _ metrics: OperationMetrics = OperationMetrics()
    ) -> ModifiedOperation<Self, _ReplacingInstrumentModifier<Self, OperationMetrics>> {
      self.modifier(_ReplacingInstrumentModifier(instrument: metrics))
    }
  }

#endif
