import OperationDemoSupport
import Prometheus
import Testing

@Suite struct `PrometheusText tests` {
  @Test func `reads samples with labels, without labels, and with escapes`() {
    let text = """
      # HELP operation_runs_total Runs.
      # TYPE operation_runs_total counter
      operation_runs_total{operation="Post.Query"} 7
      up 1
      odd{path="a \\"quoted\\" \\\\ back\\nslash",x="1"} 2.5 1700000000

      not a sample
      """
    #expect(
      PrometheusText.samples(in: text) == [
        PrometheusSample(
          name: "operation_runs_total",
          labels: ["operation": "Post.Query"],
          value: 7
        ),
        PrometheusSample(name: "up", value: 1),
        PrometheusSample(
          name: "odd",
          labels: ["path": "a \"quoted\" \\ back\nslash", "x": "1"],
          value: 2.5
        ),
      ]
    )
  }

  @Test func `skips lines that are not samples`() {
    #expect(PrometheusText.samples(in: "").isEmpty)
    #expect(PrometheusText.samples(in: "# TYPE x counter\nx{a=\"1\" 3\nx{a=1} 3\ny").isEmpty)
  }

  @Test func `reads what swift-prometheus writes`() {
    let registry = PrometheusCollectorRegistry()
    // NB: An empty help text writes no `# HELP` line, as the names alone did.
    registry.makeCounter(
      descriptor: MetricNameDescriptor(
        metricName: "operation_runs",
        unitName: "total",
        helpText: ""
      ),
      labels: [("operation", "Post.Query")]
    )
    .increment(by: Int64(3))
    registry.makeDurationHistogram(
      descriptor: MetricNameDescriptor(
        metricName: "operation_run_duration",
        unitName: "seconds",
        helpText: ""
      ),
      labels: [("operation", "Post.Query"), ("outcome", "success")],
      buckets: [.milliseconds(10), .seconds(1)]
    )
    .recordNanoseconds(20_000_000)
    let samples = PrometheusText.samples(in: registry.emitToString())
    #expect(
      samples.contains(
        PrometheusSample(
          name: "operation_runs_total",
          labels: ["operation": "Post.Query"],
          value: 3
        )
      )
    )
    #expect(
      samples.contains(
        PrometheusSample(
          name: "operation_run_duration_seconds_count",
          labels: ["operation": "Post.Query", "outcome": "success"],
          value: 1
        )
      )
    )
    #expect(samples.contains { $0.name == "operation_run_duration_seconds_bucket" })
  }

  @Test func `the excerpt sorts families, keeps one prefix and drops buckets and empty timers`() {
    let text = """
      # TYPE other_total counter
      other_total 1
      # TYPE operation_runs_total counter
      operation_runs_total{operation="B"} 2
      operation_runs_total{operation="A"} 1
      # TYPE operation_run_duration_seconds histogram
      operation_run_duration_seconds_bucket{operation="A",outcome="success",le="0.1"} 1
      operation_run_duration_seconds_bucket{operation="A",outcome="success",le="+Inf"} 1
      operation_run_duration_seconds_sum{operation="A",outcome="success"} 0.05
      operation_run_duration_seconds_count{operation="A",outcome="success"} 1
      operation_run_duration_seconds_bucket{operation="A",outcome="timeout",le="+Inf"} 0
      operation_run_duration_seconds_sum{operation="A",outcome="timeout"} 0.0
      operation_run_duration_seconds_count{operation="A",outcome="timeout"} 0
      """
    #expect(
      PrometheusText.excerpt(of: text, prefix: "operation_") == [
        "# TYPE operation_run_duration_seconds histogram",
        #"operation_run_duration_seconds_count{operation="A",outcome="success"} 1"#,
        #"operation_run_duration_seconds_sum{operation="A",outcome="success"} 0.05"#,
        "# TYPE operation_runs_total counter",
        #"operation_runs_total{operation="A"} 1"#,
        #"operation_runs_total{operation="B"} 2"#,
      ]
    )
    let everything = PrometheusText.excerpt(
      of: text,
      prefix: "operation_",
      dropsBuckets: false,
      dropsEmptyHistograms: false
    )
    #expect(everything.count == 11)
  }

  @Test func `the excerpt of a text without the prefix is empty`() {
    #expect(PrometheusText.excerpt(of: "# TYPE up gauge\nup 1", prefix: "operation_").isEmpty)
    #expect(PrometheusText.excerpt(of: "", prefix: "operation_").isEmpty)
  }
}
