import CoreMetrics
import InMemoryTracing
import Operation
import Prometheus
import Tracing

// MARK: - (15): instruments

/// (15) The instruments of issue 18 on the store of (1).
///
/// The raw values are `OperationProfile`'s scenario names. Every setting fetches ``TrivialQuery``
/// from a detached store, as (1) does; the instruments are in the store's initial context, where a
/// client's default context would put them.
public enum InstrumentSetting: String, CaseIterable, Sendable {
  /// No instrument anywhere in the process: a run pays one atomic load.
  case off = "fetch"
  /// No instrument on the store, but another client's context was given one, which flips the
  /// library's global flag: the store's runs look their instruments up in their context.
  case flagSet = "fetch-flag"
  /// `OperationMetrics` on Prometheus' client (`PrometheusMetricsFactory` with a registry of its
  /// own): a counter's increment and a timer's histogram per run.
  case metrics = "fetch-metrics"
  /// `OperationMetrics` on swift-metrics' `NOOPMetricsHandler`: the instrument's own work, without
  /// a backend's.
  case metricsNoop = "fetch-metrics-noop"
  /// `OperationTracing` on swift-distributed-tracing's `NoOpTracer`: the spans' bookkeeping
  /// (names, attributes, the service context bound around the run), without a tracer's work.
  case traced = "fetch-traced"
  /// `OperationTracing` on `InMemoryTracer`, which keeps every finished span; its spans are
  /// cleared after every 1,000 fetches so that its memory does not grow.
  case tracedInMemory = "fetch-traced-memory"
  /// Both `OperationMetrics` on Prometheus and `OperationTracing` on `NoOpTracer`.
  case metricsTraced = "fetch-metrics-traced"
  /// For the analysis: an instrument whose `started(_:)` returns `nil`. A run describes itself
  /// to its instruments (its context, `OperationRunInfo`, `OperationWork`), and nothing more.
  case ignoringInstrument = "fetch-instrument-nil"
  /// For the analysis: an instrument whose observation does nothing (the default `perform(_:)`,
  /// an empty `ended(_:duration:)`). The library's side of an observed run: the description,
  /// the clock read twice, the run nested in the observation's `perform(_:)`, and the outcome.
  case emptyInstrument = "fetch-instrument-empty"

  /// The settings that the benchmark suite measures; the other two are for the analysis, in
  /// `OperationProfile`.
  public static let measured: [Self] = [
    .off, .flagSet, .metrics, .metricsNoop, .traced, .tracedInMemory, .metricsTraced,
  ]
}

extension SequentialFetches {
  /// (15) A detached store of ``TrivialQuery`` with the instruments of `setting`.
  ///
  /// Makes its instruments when called: call it only in a process (or a benchmark) that measures
  /// `setting`, because the first instrument set on any context changes the runs of every store
  /// afterwards (``InstrumentSetting/off`` measures a process where none was ever set).
  public static func instrumented(_ setting: InstrumentSetting) -> Self {
    var context = OperationContext()
    var client: OperationClient?
    var tracer: InMemoryTracer?
    switch setting {
    case .off:
      break
    case .flagSet:
      // NB: Another client, whose default context has metrics; the store below has none.
      var otherContext = OperationContext()
      otherContext.operationMetrics = OperationMetrics(factory: NOOPMetricsHandler.instance)
      client = OperationClient(defaultContext: otherContext)
    case .metrics:
      context.operationMetrics = OperationMetrics(factory: prometheusFactory())
    case .metricsNoop:
      context.operationMetrics = OperationMetrics(factory: NOOPMetricsHandler.instance)
    case .traced:
      context.operationTracing = OperationTracing(tracer: NoOpTracer())
    case .tracedInMemory:
      let inMemory = InMemoryTracer()
      tracer = inMemory
      context.operationTracing = OperationTracing(tracer: inMemory)
    case .metricsTraced:
      context.operationMetrics = OperationMetrics(factory: prometheusFactory())
      context.operationTracing = OperationTracing(tracer: NoOpTracer())
    case .ignoringInstrument:
      context.operationInstruments = [IgnoringInstrument()]
    case .emptyInstrument:
      context.operationInstruments = [EmptyInstrument()]
    }
    let store = OperationStore.detached(
      query: TrivialQuery(),
      initialValue: nil,
      initialContext: context
    )
    guard let tracer else {
      return Self(client: client) { try await store.fetch() }
    }
    let fetches = RunCounter()
    return Self(client: client) {
      let value = try await store.fetch()
      fetches.increment()
      if fetches.count % 1_000 == 0 {
        tracer.clearFinishedSpans()
      }
      return value
    }
  }
}

/// A Prometheus backend with a registry of its own, kept in memory (nothing exports it).
private func prometheusFactory() -> PrometheusMetricsFactory {
  PrometheusMetricsFactory(registry: PrometheusCollectorRegistry())
}

/// An instrument that observes nothing.
private struct IgnoringInstrument: OperationInstrument {
  func started(_ work: OperationWork) -> (any OperationWorkObservation)? { nil }
  func record(_ event: OperationInstrumentEvent, in run: OperationRunInfo) {}
}

/// An instrument that observes every piece of work and does nothing with it.
private struct EmptyInstrument: OperationInstrument {
  func started(_ work: OperationWork) -> (any OperationWorkObservation)? { EmptyObservation() }
  func record(_ event: OperationInstrumentEvent, in run: OperationRunInfo) {}
}

private struct EmptyObservation: OperationWorkObservation {
  func ended(_ outcome: OperationRunOutcome, duration: Duration) {}
}
