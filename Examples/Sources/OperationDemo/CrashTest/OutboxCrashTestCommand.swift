import ArgumentParser
import Foundation
import OperationDemoSupport

/// `operation-demo outbox-crash-test`: a child process enqueues durable mutations while the
/// server is offline and is killed with `SIGKILL`, twice; every mutation must reach the server
/// exactly once, in order per path.
struct OutboxCrashTestCommand: AsyncParsableCommand {
  /// The first argument of `operation-demo` that runs the crash test.
  static let name = "outbox-crash-test"

  static let configuration = CommandConfiguration(
    commandName: "operation-demo \(Self.name)",
    abstract: "Kills a process that holds durable mutations, twice, and checks that each one "
      + "reaches the server exactly once, in order per path.",
    discussion: """
      Starts the posts API offline, then runs this executable as a child process: it enqueues \
      --lanes × --per-lane mutations in a MutationOutbox on SQLite and is killed with SIGKILL \
      part-way. A second child enqueues what is missing; the server comes back, and the child is \
      killed again right after the server applied a mutation and before it answered. A third \
      child delivers the rest. The server deduplicates by Idempotency-Key; the exit status is 0 \
      only if every check passed.
      """
  )

  @OptionGroup var options: OutboxCrashTestOptions

  func run() async throws {
    guard try await OutboxCrashTest(options: self.options).run() else {
      throw ExitCode.failure
    }
  }
}

/// `operation-demo outbox-crash-test child`: the crash test's child process, which the test
/// starts and kills (not for direct use).
struct OutboxCrashChildCommand: AsyncParsableCommand {
  /// The first arguments of `operation-demo` that run the child.
  static let arguments = [OutboxCrashTestCommand.name, "child"]

  static let configuration = CommandConfiguration(
    commandName: "operation-demo \(Self.arguments.joined(separator: " "))",
    abstract: "The crash test's child process, which the test starts and kills."
  )

  @Option(help: "The SQLite file of the outbox.")
  var database: String

  @Option(name: .customLong("base-url"), help: "The server.", transform: DemoOptions.parseBaseURL)
  var baseURL: URL

  @Option(parsing: .unconditional, help: "Lanes.")
  var lanes: Int

  @Option(name: .customLong("per-lane"), parsing: .unconditional, help: "Mutations per lane.")
  var perLane: Int

  @Option(name: .customLong("pace-us"), parsing: .unconditional, help: "Pause between enqueues.")
  var paceMicroseconds: Int = 0

  @Flag(help: "Enqueue the mutations that are not in the outbox yet, then deliver.")
  var enqueue = false

  func run() async throws {
    let child = OutboxCrashChild(
      databasePath: self.database,
      api: PostsAPI(baseURL: self.baseURL),
      plan: OutboxCrashPlan(seed: 0, lanes: self.lanes, perLane: self.perLane),
      enqueues: self.enqueue,
      pace: .microseconds(self.paceMicroseconds)
    )
    guard try await child.run() else {
      throw ExitCode.failure
    }
  }
}
