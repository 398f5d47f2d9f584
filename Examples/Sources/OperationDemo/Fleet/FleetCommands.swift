import ArgumentParser
import Foundation
import OperationDemoSupport
import OperationPostgres

/// `operation-demo fleet-test`: three processes share one PostgreSQL namespace; their fills
/// are coalesced, their leaders killed and stopped, their invalidations relayed across a
/// terminated connection, and their outboxes delivered by three workers.
struct FleetTestCommand: AsyncParsableCommand {
  /// The first argument of `operation-demo` that runs the fleet test.
  static let name = "fleet-test"

  static let configuration = CommandConfiguration(
    commandName: "operation-demo \(Self.name)",
    abstract: "Runs a fleet of three processes on one PostgreSQL database, kills and stops "
      + "them, and checks that every fill, invalidation and outbox entry ends as it should.",
    discussion: """
      Needs OPERATION_POSTGRES_URL (Scripts/with-postgres.sh starts a server and sets it). \
      Starts the embedded server and three children (operation-demo fleet-child) on a fresh \
      namespace, then: (a) 3 × --callers concurrent fetches of one cold key make one upstream \
      request; (b) the leader of a fill is killed while its request is held, and the others \
      take over after the lease; (c) the leader is stopped past its lease, the others take \
      over, and its late write is refused; (d) --invalidations invalidations reach the two \
      other children although one's listening connection is terminated; (e) --entries outbox \
      entries over --lanes lanes are delivered by three workers, one killed twice and one \
      stopped, each exactly once and in order per lane. The exit status is 0 only if every \
      check passed.
      """
  )

  @OptionGroup var options: FleetTestOptions

  func run() async throws {
    guard try await FleetTest(options: self.options).run() else {
      throw ExitCode.failure
    }
  }
}

/// `operation-demo fleet-child`: one instance of the fleet test's fleet, driven by the test over
/// its standard input (not for direct use).
struct FleetChildCommand: AsyncParsableCommand {
  /// The first argument of `operation-demo` that runs a child.
  static let name = "fleet-child"

  static let configuration = CommandConfiguration(
    commandName: "operation-demo \(Self.name)",
    abstract: "One instance of the fleet test's fleet, which the test starts, drives and kills."
  )

  @Option(help: "The instance's name in the fleet.")
  var instance: String

  @Option(help: "The PostgreSQL namespace the fleet shares.")
  var namespace: String

  @Option(name: .customLong("base-url"), help: "The server.", transform: DemoOptions.parseBaseURL)
  var baseURL: URL

  @Option(name: .customLong("lease-ms"), parsing: .unconditional, help: "The leases, in ms.")
  var leaseMilliseconds: Int = 2_000

  func run() async throws {
    try await FleetChild(
      instance: self.instance,
      namespace: try PostgresNamespace(self.namespace),
      api: PostsAPI(baseURL: self.baseURL),
      leaseMilliseconds: self.leaseMilliseconds
    ).run()
  }
}

/// `operation-demo fleet`: two instances of a service in one process, on one PostgreSQL
/// namespace, step by step.
struct FleetDemoCommand: AsyncParsableCommand {
  /// The first argument of `operation-demo` that runs the fleet demo.
  static let name = "fleet"

  static let configuration = CommandConfiguration(
    commandName: "operation-demo \(Self.name)",
    abstract: "Shows two instances sharing one PostgreSQL database: a coalesced fetch, the "
      + "shared cache, an invalidation that crosses over, and an outbox entry delivered by the "
      + "other instance.",
    discussion: """
      Needs OPERATION_POSTGRES_URL: Scripts/with-postgres.sh swift run --package-path Examples \
      operation-demo fleet. Without it the demo is skipped (exit status 0), except in CI \
      (CI=true), where it fails.
      """
  )

  func run() async throws {
    guard try await FleetDemo().run() else {
      throw ExitCode.failure
    }
  }
}
