import ArgumentParser
import Foundation
import Operation
import OperationDemoSupport

/// `operation-demo shutdown-test`: sends `SIGTERM` to a service while it delivers outbox entries
/// and holds unwritten cache values, and checks that it stops gracefully.
struct ShutdownTestCommand: AsyncParsableCommand {
  /// The first argument of `operation-demo` that runs the shutdown test.
  static let name = "shutdown-test"

  static let configuration = CommandConfiguration(
    commandName: "operation-demo \(Self.name)",
    abstract: "Stops a service with SIGTERM while it delivers durable mutations and caches "
      + "values, and checks that nothing is lost or cut.",
    discussion: """
      Starts the posts API, then runs this executable as a child service: a ServiceGroup with a \
      server-profile client whose query cache is persisted (values written an hour later), a \
      MutationOutbox on SQLite, and their OperationServiceLifecycle services. Once the child has \
      fetched its posts and one of its deliveries is held at the server, the test sends SIGTERM \
      and lets the delivery go on. The child must exit 0 within its 5 s grace period, with every \
      cached value on disk and the held delivery completed, not cut; the exit status is 0 only \
      if every check passed.
      """
  )

  func run() async throws {
    guard try await ShutdownTest().run() else {
      throw ExitCode.failure
    }
  }
}

/// `operation-demo shutdown-test child`: the shutdown test's child service, which the test
/// starts and stops (not for direct use).
struct ShutdownChildCommand: AsyncParsableCommand {
  /// The first arguments of `operation-demo` that run the child.
  static let arguments = [ShutdownTestCommand.name, "child"]

  static let configuration = CommandConfiguration(
    commandName: "operation-demo \(Self.arguments.joined(separator: " "))",
    abstract: "The shutdown test's child service, which the test starts and stops."
  )

  @Option(help: "The directory of the cache's and the outbox's SQLite files.")
  var directory: String

  @Option(name: .customLong("base-url"), help: "The server.", transform: DemoOptions.parseBaseURL)
  var baseURL: URL

  @Option(parsing: .unconditional, help: "Posts to fetch.")
  var posts: Int

  @Option(parsing: .unconditional, help: "Lanes.")
  var lanes: Int

  @Option(name: .customLong("per-lane"), parsing: .unconditional, help: "Mutations per lane.")
  var perLane: Int

  @Option(name: .customLong("grace-ms"), parsing: .unconditional, help: "The grace period.")
  var graceMilliseconds: Int

  func run() async throws {
    try await ShutdownChild(
      directory: self.directory,
      api: PostsAPI(baseURL: self.baseURL),
      postCount: self.posts,
      plan: OutboxCrashPlan(seed: 0, lanes: self.lanes, perLane: self.perLane),
      gracePeriod: .milliseconds(self.graceMilliseconds)
    ).run()
  }
}
