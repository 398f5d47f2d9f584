import ArgumentParser
import OperationDemoSupport

/// `swift run --package-path Examples operation-demo`: the library against a real HTTP server, in one command.
struct OperationDemoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "operation-demo",
    abstract: "Shows swift-operation fetching, retrying, deduplicating, paginating and "
      + "mutating over real HTTP.",
    discussion: """
      Starts a posts API (shaped like dummyjson.com's) on 127.0.0.1 with fault injection, then \
      runs the library's client against it: a post query with retries, a missing post, two \
      observers sharing one store, the paginated feed, a mutation, and a re-run when the network \
      comes back, mutations made offline through a durable outbox, a circuit breaker that opens \
      and closes again, and 100 stores whose lookups a batch loader sends in one request. Each \
      step is checked; the exit status is 0 only if every check passed.

      `operation-demo outbox-crash-test --help` describes the outbox crash test, a command of \
      its own; `operation-demo fleet` shows two instances sharing a PostgreSQL database, and \
      `operation-demo fleet-test --help` describes the fleet test (both need \
      OPERATION_POSTGRES_URL, which Scripts/with-postgres.sh sets).
      """
  )

  @OptionGroup var options: DemoOptions

  func run() async throws {
    if self.options.serveOnly {
      try await self.serve()
      return
    }
    guard try await DemoRunner(options: self.options).run() else {
      throw ExitCode.failure
    }
  }

  private func serve() async throws {
    let plan = self.options.faultPlan
    let latency = self.options.latencyMilliseconds
    try await EmbeddedServer.serve(
      state: ServerState(plan: plan),
      port: self.options.port
    ) { port in
      Terminal().line(
        "Serving the posts API on http://127.0.0.1:\(port) (failure rate \(plan.failureRate), "
          + "latency \(latency) ms, seed \(plan.seed)). Ctrl-C stops it."
      )
    }
  }
}
