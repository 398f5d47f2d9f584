import Foundation
import OperationDemoSupport
import OperationPersistence

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The shutdown test's parent: hosts the posts API, starts the child service, holds one of its
/// outbox deliveries at the server, sends it `SIGTERM` while the delivery is in flight and its
/// cached values are unwritten, lets the delivery go on, and checks how the child ended.
///
/// The child must exit with status 0 within its grace period, with every cached value on disk,
/// and with the held delivery completed (applied by the server once, and gone from the outbox
/// file) rather than cut.
struct ShutdownTest {
  let postCount = 20
  let plan = OutboxCrashPlan(seed: 0, lanes: 2, perLane: 3)
  let grace = Duration.seconds(5)
  /// How long the held delivery stays in flight after the signal.
  let holdAfterSignal = Duration.milliseconds(300)

  /// Runs the test.
  ///
  /// - Returns: Whether every check passed.
  /// - Throws: The error that kept the server or the child from starting.
  func run() async throws -> Bool {
    let terminal = Terminal()
    let checks = Checks(terminal: terminal)
    let state = ServerState(
      plan: FaultPlan(failureRate: 0, latency: .milliseconds(1), seed: 1)
    )
    let server = try await EmbeddedServer.start(state: state, port: 0)
    defer { Task { await server.stop() } }
    let directory = FileManager.default.temporaryDirectory
      .appending(path: "shutdown-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let held = self.plan.mutations[0]
    let hold = state.holdNextRequest(withKey: "POST \(held.path)")

    terminal.line("shutdown test: SIGTERM to a service while it delivers and caches")
    terminal.line(
      "   child   \(self.postCount) persisted post fetches (write delay 1 h), "
        + "\(self.plan.mutations.count) durable mutations over \(self.plan.lanes) lanes, "
        + "grace period \(self.grace)"
    )
    let child = try ChildProcess(
      arguments: ShutdownChildCommand.arguments + [
        "--directory", directory.path,
        "--base-url", server.baseURL.absoluteString,
        "--posts", "\(self.postCount)",
        "--lanes", "\(self.plan.lanes)",
        "--per-lane", "\(self.plan.perLane)",
        "--grace-ms", "\(Int(self.grace.components.seconds) * 1_000)",
      ]
    )
    let watchdog = Task {
      guard (try? await Task.sleep(for: .seconds(60))) != nil else { return }
      terminal.line("   watchdog: the child did not end in 60 s; killing it")
      child.kill()
    }
    defer { watchdog.cancel() }

    var pending: Int?
    var stopped = false
    var lines = child.lines.makeAsyncIterator()
    while pending == nil, let line = await lines.next() {
      if line.hasPrefix("ready ") {
        pending = Int(line.dropFirst("ready ".count))
      }
    }
    let arrived = await hold.waitForArrival(within: .seconds(10))
    _ = checks.expect(
      pending == self.postCount,
      "the child fetched \(self.postCount) posts, their values unwritten (\(pending ?? -1) pending)"
    )
    _ = checks.expect(
      arrived,
      "the child's first delivery (\(held.key)) is in flight at the server"
    )

    let signalled = ContinuousClock.now
    _ = kill(child.pid, SIGTERM)
    try await Task.sleep(for: self.holdAfterSignal)
    hold.release()
    let termination = await child.termination()
    let elapsed = ContinuousClock.now - signalled
    while let line = await lines.next() {
      if line == "stopped" { stopped = true }
    }

    _ = checks.expect(
      !termination.bySignal && termination.status == 0,
      "the child exited with status 0 (\(termination))"
    )
    _ = checks.expect(stopped, "its service group returned")
    _ = checks.expect(
      elapsed < self.grace,
      "it ended within the grace period (\(elapsed.formatted(.units(allowed: [.milliseconds]))))"
    )
    let cache = try SQLitePersistence(path: directory.appending(path: "cache.sqlite").path)
    let entryCount = try await cache.cacheStatistics().entryCount
    _ = checks.expect(
      entryCount == self.postCount,
      "every cached value is on disk (\(entryCount) of \(self.postCount))"
    )
    let applied = state.appliedOutboxItems.filter { $0.key == held.key }.count
    _ = checks.expect(applied == 1, "the server applied the held delivery once (\(applied))")
    let outbox = try SQLitePersistence(path: directory.appending(path: "outbox.sqlite").path)
    let left = try await outbox.outboxEntries()
    let appliedKeys = Set(state.appliedOutboxItems.map(\.key))
    let cut = left.filter { appliedKeys.contains($0.idempotencyKey) }
    _ = checks.expect(
      cut.isEmpty && !left.contains { $0.idempotencyKey == held.key },
      "no delivery was cut mid-request: every applied entry left the outbox "
        + "(\(left.count) never started, kept queued)"
    )
    return checks.failed == 0
  }
}
