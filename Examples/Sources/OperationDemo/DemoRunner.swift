import Foundation
import Operation
import OperationDemoSupport

/// Runs the demo: starts the embedded server (unless `--base-url`), runs the steps against it,
/// checks each one, and prints the client's metrics and the summary.
struct DemoRunner {
  let options: DemoOptions

  /// The backoff between retries. The library's default starts at one second; the demo waits less
  /// so that it finishes in a few seconds even when many requests fail.
  static let backoff = OperationBackoffFunction.exponential(.milliseconds(50))

  /// Runs the demo.
  ///
  /// - Returns: Whether every check passed.
  /// - Throws: The error that kept the embedded server from starting.
  func run() async throws -> Bool {
    let terminal = Terminal()
    let serverState = self.options.baseURL == nil ? ServerState(plan: self.options.faultPlan) : nil
    var server: EmbeddedServer?
    if let serverState {
      server = try await EmbeddedServer.start(state: serverState, port: self.options.port)
    }
    // NB: Exactly one of `--base-url` and the embedded server is set.
    let baseURL = self.options.baseURL ?? server!.baseURL
    self.printHeader(baseURL: baseURL, isEmbedded: server != nil, terminal)

    let api = PostsAPI(baseURL: baseURL)
    let reporter = DemoReporter(terminal: terminal)
    var context = OperationContext()
    context.postsAPI = api
    context.demoReporter = reporter
    context.operationBackoffFunction = Self.backoff
    // NB: Every store of the client counts its runs, retries, joins and pages into the demo's
    // Prometheus registry (the `SwiftOperationMetrics` trait).
    let metrics = DemoMetrics()
    context.operationMetrics = metrics.instrument
    let client = OperationClient(defaultContext: context)
    // NB: The server's `GET /debug/operations` reports this client from now on, and its
    // `GET /debug/metrics` serves the client's metrics.
    serverState?.inspectClient { client.snapshot() }
    serverState?.serveMetrics { metrics.text() }
    let environment = DemoEnvironment(
      client: client,
      api: api,
      reporter: reporter,
      checks: Checks(terminal: terminal),
      server: serverState,
      options: self.options
    )
    let inspector = self.options.inspect ? Inspector(baseURL: baseURL, terminal: terminal) : nil

    await self.runSteps(environment, inspector: inspector, within: self.options.timeLimit)
    if let inspector {
      await inspector.show("at the end")
    }
    if let serverState {
      environment.checks.record(
        .requestsReachedServer(
          sent: api.traffic.requestCount,
          received: serverState.totalRequests
        )
      )
      if let inspector {
        environment.checks.record(
          .debugRequestsLeftOut(
            answered: serverState.debugRequestCount,
            failed: inspector.failedFetches,
            history: serverState.requestHistory
          )
        )
      }
    }
    await MetricsReport(metrics: metrics, baseURL: baseURL).show(environment)
    self.printSummary(environment)
    await server?.stop()
    return environment.checks.failed == 0
  }

  /// The steps, in order; each prints its own heading, numbered as here from 1.
  private static let steps: [@Sendable (DemoEnvironment) async -> Void] = [
    PostQuerySteps.fetchPost,
    PostQuerySteps.fetchMissingPost,
    SharedStoreStep.run,
    FeedStep.run,
    CreatePostStep.run,
    InvalidationStep.run,
    OptimisticUpdateStep.run,
    ReconnectStep.run,
    OutboxStep.run,
    CircuitBreakerStep.run,
    BatchStep.run,
  ]

  /// The number of the feed step, after which `--inspect` checks the snapshot.
  private static let feedStepNumber = 4

  private func runSteps(
    _ env: DemoEnvironment,
    inspector: Inspector?,
    within timeLimit: Duration
  ) async {
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        for (index, step) in Self.steps.enumerated() {
          let number = index + 1
          guard let inspector else {
            await step(env)
            continue
          }
          await inspector.whileRunning("step \(number)") { await step(env) }
          let snapshot = await inspector.show("after step \(number)")
          if number == Self.feedStepNumber {
            Self.checkInspectedFeed(snapshot, env)
          }
        }
      }
      group.addTask {
        guard (try? await Task.sleep(for: timeLimit)) != nil else { return }
        env.terminal.closeLiveFrames()
        env.terminal.line()
        env.checks.expect(
          false,
          "the demo did not finish within \(self.options.timeLimitSeconds) s (--time-limit)"
        )
        self.printSummary(env)
        // NB: A step may be waiting on something that ignores cancellation; end the process.
        exit(EXIT_FAILURE)
      }
      await group.next()
      group.cancelAll()
    }
  }

  /// Checks that the snapshot taken after the feed step lists the feed's store, loaded.
  private static func checkInspectedFeed(
    _ snapshot: Result<InspectorSnapshot, Inspector.FetchError>,
    _ env: DemoEnvironment
  ) {
    let problem: String? =
      switch snapshot {
      case .success: nil
      case .failure(let error): "\(error)"
      }
    env.checks.record(
      .inspectorLists(
        path: Post.feedQuery.path.description,
        label: "the feed's store",
        phase: "success",
        in: try? snapshot.get(),
        problem: problem
      )
    )
  }

  private func printHeader(baseURL: URL, isEmbedded: Bool, _ terminal: Terminal) {
    let plan = self.options.faultPlan
    terminal.line("swift-operation demo")
    if isEmbedded {
      terminal.line(
        "   server  \(baseURL.absoluteString), embedded (Hummingbird): failure rate "
          + "\(Int((plan.failureRate * 100).rounded()))%, latency \(self.options.latencyMilliseconds) ms, "
          + "seed \(plan.seed)"
      )
    } else {
      terminal.line("   server  \(baseURL.absoluteString) (--base-url: no fault injection)")
    }
    terminal.line(
      "   client  OperationClient() over URLSession; retries wait "
        + (1...3).map { "\(Duration(duration: Self.backoff($0)).inMilliseconds) ms" }.joined(
          separator: ", "
        )
    )
  }

  private func printSummary(_ env: DemoEnvironment) {
    let terminal = env.terminal
    terminal.line()
    terminal.line("Summary")
    var requests = "\(env.api.traffic.requestCount)"
    if let server = env.server {
      requests +=
        " (the server received \(server.totalRequests): "
        + "\(server.count(of: .injectedFailure)) × HTTP 500 injected, "
        + "\(server.count(of: .offline)) × HTTP 503 while offline, "
        + "\(server.count(of: .requestedFailure)) × HTTP 500 requested by a step)"
    }
    terminal.line("   requests sent       \(requests)")
    terminal.line("   retries             \(env.reporter.retries)")
    terminal.line(
      "   deduplicated calls  \(env.deduplicatedCalls) (store runs that joined a run in flight)"
    )
    terminal.line("   time                \(String(format: "%.2f", terminal.elapsed.inSeconds)) s")
    let failed = env.checks.failed
    terminal.line(
      "   checks              \(env.checks.passed) passed, \(failed) failed"
        + (failed == 0 ? "" : "  ← the demo exits with status 1")
    )
  }
}
