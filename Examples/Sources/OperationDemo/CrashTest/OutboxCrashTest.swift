import Foundation
import OperationDemoSupport
import OperationPersistence

/// The outbox crash test's parent: hosts the server (so that its ledger outlives every child),
/// starts the children, kills them, and checks what reached the server.
///
/// 1. The server is offline. Child 1 enqueues the plan's mutations; the parent kills it with
///    `SIGKILL` after reading a random number of its “enqueued” lines (plus a random delay).
/// 2. Child 2 finds the committed entries and enqueues the others, still offline. The server
///    comes back; right after it applied a random number of mutations, before it answers the
///    last one, it kills child 2.
/// 3. Child 3 delivers what is left, resending what was in flight, and exits once the outbox is
///    empty.
struct OutboxCrashTest {
  let options: OutboxCrashTestOptions

  /// How long the server stays offline after child 2 has enqueued everything, so that the
  /// child's outbox sees the outage before the server comes back.
  private static let outage = Duration.milliseconds(100)

  /// Runs the test.
  ///
  /// - Returns: Whether every check passed.
  /// - Throws: The error that kept the server or a child from starting.
  func run() async throws -> Bool {
    let seed = self.options.seed ?? UInt64.random(in: 1...999_999)
    let plan = self.options.plan(seed: seed)
    let terminal = Terminal()
    let checks = Checks(terminal: terminal)
    let state = ServerState(
      plan: FaultPlan(failureRate: self.options.failureRate, latency: .milliseconds(1), seed: seed)
    )
    state.isOffline = true
    let server = try await EmbeddedServer.start(state: state, port: 0)
    let directory = FileManager.default.temporaryDirectory
      .appending(path: "outbox-crash-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let database = directory.appending(path: "outbox.sqlite").path

    terminal.line("outbox crash test, seed \(seed) (--seed \(seed) runs it again)")
    terminal.line(
      "   server  \(server.baseURL.absoluteString), embedded, offline; failure rate "
        + "\(Int((self.options.failureRate * 100).rounded()))% once online"
    )
    terminal.line(
      "   plan    \(plan.lanes) lanes × \(plan.perLane) durable mutations, keys "
        + "\(plan.mutations[0].key)…; SQLite \(database)"
    )
    terminal.line(
      "   kills   child 1 after \(plan.killAfterEnqueued) “enqueued” lines "
        + "+ \(plan.killDelayMicroseconds) µs; child 2 when the server has applied "
        + "\(plan.killAtApplied) (before it answers)"
    )

    let children = Locked([ChildProcess]())
    let watchdog = Task {
      guard (try? await Task.sleep(for: .seconds(self.options.timeLimitSeconds))) != nil else {
        return
      }
      terminal.line()
      checks.expect(
        false,
        "the test did not finish within \(self.options.timeLimitSeconds) s (--time-limit); "
          + "seed \(seed)"
      )
      for child in children.withLock({ $0 }) { child.kill() }
      await Self.describeOutbox(at: database, state: state, terminal)
      try? FileManager.default.removeItem(at: directory)
      exit(EXIT_FAILURE)
    }
    defer { watchdog.cancel() }
    let launch = { (enqueues: Bool) throws -> ChildProcess in
      var arguments =
        OutboxCrashChildCommand.arguments + [
          "--database", database,
          "--base-url", server.baseURL.absoluteString,
          "--lanes", "\(plan.lanes)",
          "--per-lane", "\(plan.perLane)",
          "--pace-us", "\(self.options.paceMicroseconds)",
        ]
      if enqueues { arguments.append("--enqueue") }
      let child = try ChildProcess(arguments: arguments)
      children.withLock { $0.append(child) }
      return child
    }

    // 1. Offline: child 1 enqueues, and is killed part-way.
    terminal.step(1, "Offline: child 1 enqueues durable mutations, killed with SIGKILL part-way")
    let child1 = try launch(true)
    var reported = [String]()
    var lines = child1.lines.makeAsyncIterator()
    while let line = await lines.next() {
      guard case .enqueued(let key) = OutboxChildLine(parsing: line) else { continue }
      reported.append(key)
      if reported.count == plan.killAfterEnqueued {
        try? await Task.sleep(for: .microseconds(plan.killDelayMicroseconds))
        child1.kill()
        break
      }
    }
    // NB: Lines the child printed before the kill landed are still in the pipe.
    while let line = await lines.next() {
      if case .enqueued(let key) = OutboxChildLine(parsing: line) { reported.append(key) }
    }
    let end1 = await child1.termination()
    terminal.event("child 1", "pid \(child1.pid) \(end1) after \(reported.count) “enqueued” lines")
    checks.record(
      .killedMidRun(
        label: "child 1 (enqueueing offline)",
        wasKilled: end1.isKilled,
        progress: reported.count,
        total: plan.total,
        unit: "entries reported committed"
      )
    )

    // 2. Child 2 enqueues the rest offline; the server comes back and kills it mid-delivery.
    terminal.step(2, "Restarted offline: child 2 enqueues the rest; the server comes back")
    let child2 = try launch(true)
    let killedAt = Locked<AppliedOutboxItem?>(nil)
    state.onOutboxItemApplied { item in
      guard item.sequence == plan.killAtApplied else { return }
      // NB: Recorded before the kill, which the parent may see at once.
      killedAt.withLock { $0 = item }
      child2.kill()
    }
    var found = [String]()
    var enqueued = [String]()
    var printedDelivered = false
    lines = child2.lines.makeAsyncIterator()
    while let line = await lines.next() {
      switch OutboxChildLine(parsing: line) {
      case .found(let key): found.append(key)
      case .enqueued(let key): enqueued.append(key)
      case .ready(let entries):
        terminal.event(
          "child 2",
          "pid \(child2.pid) found \(found.count) entries, enqueued \(enqueued.count): "
            + "\(entries) in the outbox"
        )
        try? await Task.sleep(for: Self.outage)
        state.isOffline = false
        terminal.event("server", "online")
      case .delivered: printedDelivered = true
      default: break
      }
    }
    let end2 = await child2.termination()
    let kill2 = killedAt.withLock { $0 }
    terminal.event(
      "child 2",
      "\(end2)"
        + (kill2.map { " when the server applied \($0.key) (\($0.sequence) applied)" } ?? "")
    )
    checks.record(
      .committedEntriesSurvived(
        reported: reported,
        found: found,
        order: plan.mutations.map(\.key)
      )
    )
    checks.record(
      .killedMidRun(
        label: "child 2 (delivering)",
        wasKilled: end2.isKilled && kill2 != nil && !printedDelivered,
        progress: kill2?.sequence ?? 0,
        total: plan.total,
        unit: "keys applied by the server"
      )
    )

    // 3. Child 3 delivers the rest.
    state.onOutboxItemApplied { _ in }
    terminal.step(3, "Restarted online: child 3 delivers what is left, and exits when it is empty")
    let child3 = try launch(false)
    var found3 = 0
    var failures = [String]()
    printedDelivered = false
    for await line in child3.lines {
      switch OutboxChildLine(parsing: line) {
      case .found: found3 += 1
      case .delivered: printedDelivered = true
      case .failed(let key, let error): failures.append("\(key): \(error)")
      default: break
      }
    }
    let end3 = await child3.termination()
    terminal.event(
      "child 3",
      "pid \(child3.pid) found \(found3) entries, \(end3)"
        + (printedDelivered ? ", outbox empty" : "")
    )
    for failure in failures {
      terminal.event("child 3", "failed for good: \(failure)")
    }
    let entriesLeft = try await SQLitePersistence(path: database).outboxEntries()

    terminal.line()
    terminal.line("Checks")
    let items = state.appliedOutboxItems
    let appliedByPath = Dictionary(grouping: items, by: \.path).mapValues { $0.map(\.key) }
    checks.expect(
      end3 == ChildProcess.Termination(status: 0, bySignal: false) && printedDelivered,
      "child 3 exited with status 0 after its outbox emptied (\(end3))"
    )
    checks.record(.outboxEmptied(entriesLeft: entriesLeft.count, delivered: items.count))
    checks.record(
      .appliedExactlyOnce(
        expectedKeys: plan.mutations.map(\.key),
        appliedKeysByPath: appliedByPath
      )
    )
    checks.record(
      .appliedInOrder(expectedKeysByPath: plan.keysByPath, appliedKeysByPath: appliedByPath)
    )
    let ledger = state.idempotencyLedger
    checks.record(
      .resentAfterKill(key: kill2?.key, receipts: kill2.map { ledger.receipts(for: $0.key) } ?? 0)
    )

    terminal.line()
    terminal.line("Summary")
    terminal.line(
      "   server      \(state.totalRequests) requests: \(state.count(of: .offline)) × HTTP 503 "
        + "offline, \(state.count(of: .injectedFailure)) × HTTP 500 injected"
    )
    terminal.line(
      "   ledger      \(ledger.appliedCount) keys applied, \(ledger.replayCount) repeated "
        + "deliveries answered from the ledger (deduplicated), \(ledger.conflictCount) conflicts"
    )
    terminal.line("   time        \(String(format: "%.2f", terminal.elapsed.inSeconds)) s")
    terminal.line(
      "   checks      \(checks.passed) passed, \(checks.failed) failed"
        + (checks.failed == 0 ? "" : "  ← seed \(seed); the test exits with status 1")
    )
    await server.stop()
    return checks.failed == 0
  }

  /// Prints what the outbox and the server hold, for a run that did not finish.
  private static func describeOutbox(
    at path: String,
    state: ServerState,
    _ terminal: Terminal
  ) async {
    guard let entries = try? await SQLitePersistence(path: path).outboxEntries() else {
      terminal.line("   the outbox could not be read")
      return
    }
    terminal.line(
      "   the outbox holds \(entries.count) entries; the server applied "
        + "\(state.appliedOutboxItems.count) and last answered: "
        + state.requestHistory.entries.suffix(3).map(\.key).joined(separator: ", ")
    )
    for (lane, laneEntries) in Dictionary(grouping: entries, by: \.lane).sorted(by: {
      $0.key < $1.key
    }) {
      guard let head = laneEntries.first else { continue }
      terminal.line(
        "   \(lane): \(laneEntries.count) left, head \(head.idempotencyKey) \(head.status), "
          + "\(head.attempts) attempt(s), last error: \(head.lastError ?? "none")"
      )
    }
  }
}
