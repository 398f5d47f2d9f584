import Foundation
import Operation
import OperationDemoSupport

/// Runs the demo: starts the embedded server (unless `--base-url`), runs the steps against it,
/// checks each one, and prints the summary.
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
    let environment = DemoEnvironment(
      client: OperationClient(defaultContext: context),
      api: api,
      reporter: reporter,
      checks: Checks(terminal: terminal),
      server: serverState,
      options: self.options
    )

    await self.runSteps(environment, within: self.options.timeLimit)
    if let serverState {
      environment.checks.record(
        .requestsReachedServer(
          sent: api.traffic.requestCount,
          received: serverState.totalRequests
        )
      )
    }
    self.printSummary(environment)
    await server?.stop()
    return environment.checks.failed == 0
  }

  private func runSteps(_ env: DemoEnvironment, within timeLimit: Duration) async {
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        await PostQuerySteps.fetchPost(env)
        await PostQuerySteps.fetchMissingPost(env)
        await SharedStoreStep.run(env)
        await FeedStep.run(env)
        await CreatePostStep.run(env)
        await InvalidationStep.run(env)
        await OptimisticUpdateStep.run(env)
        await ReconnectStep.run(env)
        await OutboxStep.run(env)
      }
      group.addTask {
        guard (try? await Task.sleep(for: timeLimit)) != nil else { return }
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
