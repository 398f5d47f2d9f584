import Foundation
import OperationDemoSupport
import OperationPersistence
import OperationPostgres
import PostgresNIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The fleet test's parent (`operation-demo fleet-test`): hosts the upstream server, starts
/// three children that share one PostgreSQL namespace, and runs the rounds:
///
/// - a. 3 × `callers` concurrent fetches of one cold key: one upstream request;
/// - b. the leader of a fill is killed (`SIGKILL`) while the server holds its request: the
///   others take over after its lease; two upstream requests;
/// - c. the leader is stopped (`SIGSTOP`) past its lease: the others take over, and its late
///   write is refused by generation;
/// - d. child 1 makes `invalidations` invalidations; child 2's listening connection is
///   terminated in the middle; children 2 and 3 apply every one;
/// - e. `entries` outbox entries over `lanes` lanes (some in transactions, some rolled back),
///   three workers, one killed twice and one stopped past its lease: every entry applied once,
///   in order per lane, none rolled back delivered, the outbox empty.
struct FleetTest {
  let options: FleetTestOptions

  /// One line of the results table.
  private struct Row {
    let round: String
    let scenario: String
    let upstream: String
    let result: String
  }

  /// What the rounds share.
  private final class Run: Sendable {
    let terminal: Terminal
    let checks: Checks
    let state: ServerState
    let baseURL: URL
    let namespace: PostgresNamespace
    let postgres: PostgresClient
    let persistence: PostgresPersistence
    let leaseMilliseconds: Int
    /// The children by slot (child 1, 2, 3), replaced when one is killed.
    let slots = Locked([FleetChildHandle]())
    /// Every child started, for the watchdog.
    let everyChild = Locked([ChildProcess]())
    let started = Locked(0)
    private let rows = Locked([Row]())

    init(
      terminal: Terminal,
      state: ServerState,
      baseURL: URL,
      namespace: PostgresNamespace,
      postgres: PostgresClient,
      persistence: PostgresPersistence,
      leaseMilliseconds: Int
    ) {
      self.terminal = terminal
      self.checks = Checks(terminal: terminal)
      self.state = state
      self.baseURL = baseURL
      self.namespace = namespace
      self.postgres = postgres
      self.persistence = persistence
      self.leaseMilliseconds = leaseMilliseconds
    }

    func child(_ slot: Int) -> FleetChildHandle {
      self.slots.withLock { $0[slot] }
    }

    var children: [FleetChildHandle] {
      self.slots.withLock { $0 }
    }

    func add(_ row: Row) {
      self.rows.withLock { $0.append(row) }
    }

    var table: [Row] {
      self.rows.withLock { $0 }
    }

    /// Starts a child and waits until its fleet listens.
    func launch() async throws -> FleetChildHandle {
      let number = self.started.withLock { started in
        started += 1
        return started
      }
      let instance = "child-\(number)"
      let child = try FleetChildHandle(
        instance: instance,
        arguments: [
          FleetChildCommand.name,
          "--instance", instance,
          "--namespace", self.namespace.name,
          "--base-url", self.baseURL.absoluteString,
          "--lease-ms", "\(self.leaseMilliseconds)",
        ]
      )
      self.everyChild.withLock { $0.append(child.process) }
      let ready = await child.take(within: .seconds(60)) { line in
        if case .ready = line { true } else { nil }
      }
      guard ready != nil else {
        child.process.kill()
        throw FleetTestError("\(instance) (pid \(child.process.pid)) did not start listening")
      }
      return child
    }
  }

  /// Runs the test.
  ///
  /// - Returns: Whether every check passed.
  /// - Throws: The error that kept the server, the database or a child from starting.
  func run() async throws -> Bool {
    guard let url = FleetPostgres.url else {
      Terminal().line(
        "fleet test: \(FleetPostgres.variable) is not set; run it with a PostgreSQL server:\n"
          + "   Scripts/with-postgres.sh swift run --package-path Examples operation-demo fleet-test"
      )
      return false
    }
    // NB: A command written to a child that was just killed must not kill the parent.
    signal(SIGPIPE, SIG_IGN)
    let seed = self.options.seed ?? UInt64.random(in: 1...999_999)
    let terminal = Terminal()
    let state = ServerState(plan: FaultPlan(failureRate: 0, latency: .zero, seed: seed))
    let server = try await EmbeddedServer.start(state: state, port: 0)
    let namespace = FleetPostgres.makeNamespace()
    let postgres = PostgresClient(
      configuration: try FleetPostgres.configuration(url: url, applicationName: "fleet-test")
    )
    let postgresTask = Task { await postgres.run() }
    defer { postgresTask.cancel() }
    let persistence = try await PostgresPersistence(client: postgres, namespace: namespace)
    let run = Run(
      terminal: terminal,
      state: state,
      baseURL: server.baseURL,
      namespace: namespace,
      postgres: postgres,
      persistence: persistence,
      leaseMilliseconds: self.options.leaseMilliseconds
    )

    terminal.line(
      "fleet test, seed \(seed) (--seed \(seed) kills the outbox's workers at the same points)"
    )
    terminal.line("   server     \(server.baseURL.absoluteString), embedded")
    terminal.line("   postgres   \(url), namespace \(namespace.name)")
    terminal.line(
      "   children   3 × operation-demo \(FleetChildCommand.name), lease "
        + "\(self.options.leaseMilliseconds) ms"
    )
    let timeLimit = self.options.timeLimitSeconds
    let watchdog = Task {
      guard (try? await Task.sleep(for: .seconds(timeLimit))) != nil else { return }
      terminal.line()
      run.checks.expect(false, "the test did not finish within \(timeLimit) s (--time-limit)")
      for child in run.everyChild.withLock({ $0 }) { child.kill() }
      exit(EXIT_FAILURE)
    }
    defer { watchdog.cancel() }

    do {
      for _ in 0..<3 {
        let child = try await run.launch()
        run.slots.withLock { $0.append(child) }
      }
      terminal.event(
        "fleet",
        run.children.map { "\($0.instance) pid \($0.process.pid)" }.joined(separator: ", ")
          + ": listening"
      )
      let rounds = self.options.rounds
      if rounds.contains("a") { await self.coalescedRound(run) }
      if rounds.contains("b") { try await self.killedLeaderRound(run) }
      if rounds.contains("c") { await self.stalledLeaderRound(run) }
      if rounds.contains("d") { try await self.invalidationRound(run) }
      if rounds.contains("e") {
        try await self.outboxRound(run, plan: self.options.outboxPlan(seed: seed))
      }
    } catch {
      run.checks.expect(false, "the test stopped: \(error)")
    }

    for child in run.children {
      await child.stop()
    }
    try? await FleetPostgres.drop(namespace, on: postgres)
    await server.stop()

    terminal.line()
    terminal.line("Results")
    Self.printTable(run.table, terminal)
    terminal.line("   time     \(String(format: "%.1f", terminal.elapsed.inSeconds)) s")
    terminal.line(
      "   checks   \(run.checks.passed) passed, \(run.checks.failed) failed"
        + (run.checks.failed == 0 ? "" : "  ← seed \(seed); the test exits with status 1")
    )
    return run.checks.failed == 0
  }

  // MARK: - a. One upstream call across the fleet

  private func coalescedRound(_ run: Run) async {
    let key = "round-a"
    let callers = self.options.callers
    run.terminal.step(1, "3 × \(callers) concurrent fetches of one cold key (\(key))")
    let hold = run.state.fleetUpstream.holdNextRequest(forKey: key)
    let children = run.children
    for child in children {
      child.send(.fetch(key: key, callers: callers))
    }
    let started = await Self.takeStarted(key: key, from: children)
    let arrived = await hold.waitForArrival(within: .seconds(30))
    run.terminal.event(
      "server",
      "holds the request of \(run.state.fleetUpstream.requests(forKey: key).first ?? "nobody") "
        + "until \(started) of 3 children report their fetches started"
    )
    // NB: A child reports `started` once its store's run is in flight; its first step of the
    // fill (a transaction) may still be on its way. The hold lasts a little longer (--hold-ms),
    // so that every child's step finds the leader's lease: one leads, the others follow.
    try? await Task.sleep(for: .milliseconds(self.options.holdMilliseconds))
    hold.release()
    var reports = [FleetFetchReport]()
    for child in children {
      if let report = await Self.takeReport(key: key, from: child, within: .seconds(60)) {
        reports.append(report)
      }
    }
    let requests = run.state.fleetUpstream.requests(forKey: key)
    run.checks.expect(
      arrived && started == 3,
      "the fills ran concurrently: 3 children started while the request was held"
    )
    run.checks.record(.upstreamRequests(key: key, requests: requests.count, expected: 1))
    run.checks.record(
      .everyCallerAnswered(
        reports: reports,
        expectedChildren: 3,
        callers: callers,
        allowsErrors: false
      )
    )
    Self.describe(reports, run)
    let led = reports.reduce(0) { $0 + $1.counters.fillsLed }
    let followed = reports.reduce(0) { $0 + $1.counters.fillsFollowed }
    let fresh = reports.reduce(0) { $0 + $1.counters.fillsServedFresh }
    run.checks.record(
      .fillCoalesced(led: led, followed: followed, servedFresh: fresh, children: children.count)
    )
    run.add(
      Row(
        round: "a",
        scenario: "3 × \(callers) fetches of one cold key",
        upstream: "\(requests.count)",
        result: "\(reports.reduce(0) { $0 + $1.values }) values; fills: \(led) led, "
          + "\(followed) followed, \(fresh) served fresh"
      )
    )
  }

  // MARK: - b. A leader killed mid-request

  private func killedLeaderRound(_ run: Run) async throws {
    let key = "round-b"
    let callers = self.options.callers
    run.terminal.step(
      2,
      "The leader of a fill is killed (SIGKILL) while the server holds its request"
    )
    let (leader, others, hold) = try await self.startHeldFill(key: key, run)
    leader.process.kill()
    let end = await leader.process.termination()
    run.terminal.event(
      "fleet",
      "\(leader.instance) (the leader) \(end); the others wait out its lease"
    )
    hold.release()
    let start = ContinuousClock.now
    var reports = [FleetFetchReport]()
    for child in others {
      if let report = await Self.takeReport(key: key, from: child, within: .seconds(60)) {
        reports.append(report)
      }
    }
    let waited = ContinuousClock.now - start
    let requests = run.state.fleetUpstream.requests(forKey: key)
    run.terminal.event(
      "fleet",
      "the survivors answered \(String(format: "%.2f", waited.inSeconds)) s after the kill; "
        + "upstream requests from \(requests.joined(separator: ", "))"
    )
    Self.describe(reports, run)
    run.checks.record(.upstreamRequests(key: key, requests: requests.count, expected: 2))
    run.checks.record(
      .everyCallerAnswered(
        reports: reports,
        expectedChildren: 2,
        callers: callers,
        allowsErrors: true
      )
    )
    run.checks.record(.fillTakenOver(reports: reports, formerLeader: leader.instance))
    run.add(
      Row(
        round: "b",
        scenario: "leader SIGKILLed mid-request",
        upstream: "\(requests.count)",
        result: "\(reports.reduce(0) { $0 + $1.values }) values, "
          + "\(reports.reduce(0) { $0 + $1.errors }) errors, answered "
          + "\(String(format: "%.1f", waited.inSeconds)) s after the kill"
      )
    )
    let slot = run.children.firstIndex { $0.instance == leader.instance } ?? 0
    let replacement = try await run.launch()
    run.slots.withLock { $0[slot] = replacement }
    run.terminal.event(
      "fleet",
      "\(replacement.instance) replaces \(leader.instance) as child \(slot + 1)"
    )
  }

  // MARK: - c. A leader stopped past its lease

  private func stalledLeaderRound(_ run: Run) async {
    let key = "round-c"
    let callers = self.options.callers
    run.terminal.step(3, "The leader of a fill is stopped (SIGSTOP) past its lease, then continued")
    guard let (leader, others, hold) = try? await self.startHeldFill(key: key, run) else {
      run.checks.expect(false, "the fill of \(key) did not start")
      return
    }
    leader.process.signal(SIGSTOP)
    run.terminal.event("fleet", "\(leader.instance) (the leader) stopped")
    var reports = [FleetFetchReport]()
    for child in others {
      if let report = await Self.takeReport(key: key, from: child, within: .seconds(60)) {
        reports.append(report)
      }
    }
    run.terminal.event(
      "fleet",
      "the others answered: "
        + reports.map {
          "\($0.key) from \($0.valuesByFetcher.keys.sorted().joined(separator: ", "))"
        }
        .joined(separator: "; ")
    )
    hold.release()
    leader.process.signal(SIGCONT)
    run.terminal.event(
      "server",
      "releases \(leader.instance)'s request; \(leader.instance) continued"
    )
    let leaderReport = await Self.takeReport(key: key, from: leader, within: .seconds(60))
    Self.describe(reports + (leaderReport.map { [$0] } ?? []), run)
    let requests = run.state.fleetUpstream.requests(forKey: key)
    run.checks.record(.upstreamRequests(key: key, requests: requests.count, expected: 2))
    run.checks.record(
      .everyCallerAnswered(
        reports: reports,
        expectedChildren: 2,
        callers: callers,
        allowsErrors: false
      )
    )
    run.checks.record(.fillTakenOver(reports: reports, formerLeader: leader.instance))
    run.checks.record(
      .everyCallerAnswered(
        reports: leaderReport.map { [$0] } ?? [],
        expectedChildren: 1,
        callers: callers,
        allowsErrors: false
      )
    )
    let refused = leaderReport?.counters.fillsRefused ?? -1
    run.checks.record(.lateWriteRefused(instance: leader.instance, refused: refused))
    run.add(
      Row(
        round: "c",
        scenario: "leader SIGSTOPped past its lease",
        upstream: "\(requests.count)",
        result: "\(reports.reduce(0) { $0 + $1.values }) values from the takeover; "
          + "\(leader.instance) fillsRefused \(refused)"
      )
    )
  }

  /// Starts a fill of `key` on every child with the upstream request held, and returns once
  /// every child's fetches started: the leader (whose request the server holds), the others,
  /// and the hold.
  private func startHeldFill(key: String, _ run: Run) async throws -> (
    FleetChildHandle, [FleetChildHandle], RequestHold
  ) {
    let hold = run.state.fleetUpstream.holdNextRequest(forKey: key)
    let children = run.children
    for child in children {
      child.send(.fetch(key: key, callers: self.options.callers))
    }
    let started = await Self.takeStarted(key: key, from: children)
    guard started == children.count, await hold.waitForArrival(within: .seconds(30)),
      let instance = run.state.fleetUpstream.requests(forKey: key).first,
      let leader = children.first(where: { $0.instance == instance })
    else {
      hold.release()
      throw FleetTestError("the fill of \(key) did not reach the server with every child started")
    }
    run.terminal.event(
      "server",
      "holds \(leader.instance)'s request (the leader); \(started) children's fetches started"
    )
    return (leader, children.filter { $0 !== leader }, hold)
  }

  // MARK: - d. Invalidations across the fleet

  private func invalidationRound(_ run: Run) async throws {
    let count = self.options.invalidations
    let (sender, receivers) = (run.child(0), [run.child(1), run.child(2)])
    run.terminal.step(
      4,
      "\(count) invalidations on \(sender.instance); \(receivers[0].instance)'s listening "
        + "connection is terminated in the middle"
    )
    for receiver in receivers {
      receiver.send(.prepareStores(count: count))
      guard
        await receiver.take(
          within: .seconds(30),
          { line in
            if case .storesPrepared = line { true } else { nil }
          }
        ) != nil
      else { throw FleetTestError("\(receiver.instance) did not create its stores") }
    }
    let half = count / 2
    sender.send(.invalidate(first: 0, count: half))
    _ = await sender.take(within: .seconds(30)) { line in
      if case .invalidated = line { true } else { nil }
    }
    let terminated = try await self.terminateListener(of: receivers[0], run)
    run.terminal.event(
      "postgres",
      "pg_terminate_backend ended \(terminated) listening connection(s) of \(receivers[0].instance)"
        + " after \(half) invalidations"
    )
    sender.send(.invalidate(first: half, count: count - half))
    _ = await sender.take(within: .seconds(30)) { line in
      if case .invalidated = line { true } else { nil }
    }
    // NB: The terminated child may apply the second half before it notices the termination
    // (its replay of the first notification reads every row after its last), so the wait is
    // also for its new listening connection.
    let counters = await Self.waitForInvalidations(count, on: receivers) { counters in
      counters[receivers[0].instance].map { $0.listenerConnections >= 2 } ?? false
    }
    let latencies = await Self.latencies(of: receivers)
    // NB: Then one at a time, 20 ms apart: the latency of an invalidation that does not wait
    // behind 499 others of its batch.
    let spaced = 50
    run.terminal.note("then \(spaced) invalidations one at a time, 20 ms apart")
    for index in 0..<spaced {
      sender.send(.invalidate(first: index, count: 1))
      _ = await sender.take(within: .seconds(10)) { line in
        if case .invalidated = line { true } else { nil }
      }
      try? await Task.sleep(for: .milliseconds(20))
    }
    let spacedCounters = await Self.waitForInvalidations(count + spaced, on: receivers)
    let spacedLatencies = await Self.latencies(of: receivers, last: spaced)
    let percentiles = LatencyPercentiles(milliseconds: latencies)
    run.checks.expect(
      terminated >= 1,
      "\(receivers[0].instance)'s listening connection was terminated mid-burst"
    )
    run.checks.record(
      .invalidationsApplied(
        appliedByChild: counters.mapValues(\.invalidationsApplied),
        expected: count
      )
    )
    run.checks.record(
      .listenerReconnected(
        instance: receivers[0].instance,
        connections: counters[receivers[0].instance]?.listenerConnections ?? 0
      )
    )
    let stale = counters.sorted { $0.key < $1.key }.map {
      "\($0.key) \($0.value.invalidatedStores)"
    }
    run.checks.expect(
      counters.count == 2 && counters.values.allSatisfy { $0.invalidatedStores == count },
      "every prepared store is invalidated on both receivers (\(stale.joined(separator: ", ")))"
    )
    run.checks.record(.latenciesMeasured(percentiles, expected: count * receivers.count))
    let spacedPercentiles = LatencyPercentiles(milliseconds: spacedLatencies)
    run.checks.record(
      .invalidationsApplied(
        appliedByChild: spacedCounters.mapValues { $0.invalidationsApplied - count },
        expected: spaced
      )
    )
    run.checks.record(.latenciesMeasured(spacedPercentiles, expected: spaced * receivers.count))
    run.add(
      Row(
        round: "d",
        scenario: "\(count) invalidations, listener terminated",
        upstream: "–",
        result: "burst: \(Self.describe(percentiles)); one at a time: "
          + Self.describe(spacedPercentiles)
      )
    )
  }

  /// Asks the receivers for their counters until each applied `count` invalidations and
  /// `isDone` holds, for at most 30 seconds; returns the last counters.
  private static func waitForInvalidations(
    _ count: Int,
    on receivers: [FleetChildHandle],
    until isDone: ([String: FleetCounters]) -> Bool = { _ in true }
  ) async -> [String: FleetCounters] {
    var counters = [String: FleetCounters]()
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
      for receiver in receivers {
        counters[receiver.instance] = await receiver.counters()
      }
      if counters.values.allSatisfy({ $0.invalidationsApplied >= count }), isDone(counters) {
        break
      }
      try? await Task.sleep(for: .milliseconds(100))
    }
    return counters
  }

  /// The receivers' propagation latencies: all of them, or each one's `last`.
  private static func latencies(of receivers: [FleetChildHandle], last: Int? = nil) async
    -> [Double]
  {
    var latencies = [Double]()
    for receiver in receivers {
      receiver.send(.latencies)
      let own: [Double] =
        await receiver.take(within: .seconds(10)) { line in
          if case .latencies(let milliseconds) = line { milliseconds } else { nil }
        } ?? []
      latencies += own.suffix(last ?? own.count)
    }
    return latencies
  }

  private static func describe(_ percentiles: LatencyPercentiles?) -> String {
    guard let percentiles else { return "no latency" }
    return "p50 \(Verdict.format(milliseconds: percentiles.p50)), "
      + "p99 \(Verdict.format(milliseconds: percentiles.p99))"
  }

  /// Terminates the connection on which `child` listens, as a failover would.
  private func terminateListener(of child: FleetChildHandle, _ run: Run) async throws -> Int {
    let pattern = "LISTEN%\(run.namespace.name)_events%"
    let rows = try await run.postgres.query(
      """
      SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE application_name = \(child.instance) AND query ILIKE \(pattern)
      """
    )
    var terminated = 0
    for try await row in rows where try row.decode(Bool.self) {
      terminated += 1
    }
    return terminated
  }

  // MARK: - e. The outbox, three workers

  private func outboxRound(_ run: Run, plan: FleetOutboxPlan) async throws {
    let total = plan.mutations.count
    let lanes = self.options.lanes
    let rolledBack = FleetOutboxPlan.rolledBack(count: self.options.rolledBack, lanes: lanes)
    run.terminal.step(
      5,
      "Outbox: \(total) entries over \(lanes) lanes, 3 workers; one killed twice, one stopped "
        + "past its lease"
    )
    run.terminal.note(
      "kills at \(plan.killsAtApplied.map(String.init).joined(separator: " and ")) applied, "
        + "stop at \(plan.stopAtApplied) applied; \(rolledBack.count) entries rolled back"
    )
    for child in run.children {
      child.send(.startOutbox)
      guard
        await child.take(
          within: .seconds(30),
          { line in
            if case .outboxStarted = line { true } else { nil }
          }
        ) != nil
      else { throw FleetTestError("\(child.instance)'s outbox did not start") }
    }
    let start = ContinuousClock.now
    let monitor = Task { await self.disruptWorkers(run, plan: plan) }
    let enqueued = try await self.enqueue(
      plan.mutations,
      rolledBack: rolledBack,
      lanes: lanes,
      run
    )
    run.terminal.event(
      "postgres",
      "\(enqueued.inTransactions) entries enqueued in the writer's transactions, "
        + "\(enqueued.alone) alone, \(rolledBack.count) rolled back, in "
        + "\(String(format: "%.2f", (ContinuousClock.now - start).inSeconds)) s"
    )
    var left = -1
    let deadline = ContinuousClock.now + .seconds(150)
    while ContinuousClock.now < deadline {
      if run.state.appliedOutboxItems.count >= total {
        left = try await self.outboxCount(run)
        if left == 0 { break }
      }
      try? await Task.sleep(for: .milliseconds(20))
    }
    let deliveryTime = ContinuousClock.now - start
    monitor.cancel()
    let disruptions = await monitor.value
    for disruption in disruptions {
      run.terminal.event("fleet", disruption)
    }
    left = try await self.outboxCount(run)
    let items = run.state.appliedOutboxItems
    let appliedByPath = Dictionary(grouping: items, by: \.path).mapValues { $0.map(\.key) }
    run.terminal.event(
      "server",
      "\(items.count) keys applied in \(String(format: "%.2f", deliveryTime.inSeconds)) s; "
        + "\(run.state.idempotencyLedger.replayCount) repeated deliveries answered from the ledger"
    )
    run.checks.expect(
      disruptions.count == 3,
      "one worker was killed twice and one stopped past its lease (\(disruptions.count) of 3 done)"
    )
    run.checks.record(
      .appliedExactlyOnce(
        expectedKeys: plan.mutations.map(\.key),
        appliedKeysByPath: appliedByPath
      )
    )
    run.checks.record(
      .appliedInOrder(expectedKeysByPath: plan.keysByPath, appliedKeysByPath: appliedByPath)
    )
    run.checks.record(
      .rolledBackNeverDelivered(
        rolledBackKeys: rolledBack.map(\.key),
        appliedKeys: items.map(\.key)
      )
    )
    run.checks.record(.outboxEmptied(entriesLeft: left, delivered: items.count))
    run.add(
      Row(
        round: "e",
        scenario: "\(total) outbox entries, \(lanes) lanes, 3 workers",
        upstream: "\(items.count)",
        result: "delivered in \(String(format: "%.1f", deliveryTime.inSeconds)) s, "
          + "\(run.state.idempotencyLedger.replayCount) replays, \(left) left"
      )
    )
  }

  /// Kills child 2 twice (starting a new one each time) and stops child 3 past its lease, at
  /// the plan's counts of applied entries; returns what it did.
  private func disruptWorkers(_ run: Run, plan: FleetOutboxPlan) async -> [String] {
    var done = [String]()
    for point in plan.killsAtApplied {
      guard await Self.waitUntilApplied(point, run) else { return done }
      let victim = run.child(1)
      victim.process.kill()
      _ = await victim.process.termination()
      let applied = run.state.appliedOutboxItems.count
      guard let replacement = try? await run.launch() else {
        done.append("SIGKILL \(victim.instance) at \(applied) applied; no replacement started")
        return done
      }
      replacement.send(.startOutbox)
      _ = await replacement.take(within: .seconds(30)) { line in
        if case .outboxStarted = line { true } else { nil }
      }
      run.slots.withLock { $0[1] = replacement }
      done.append(
        "SIGKILL \(victim.instance) at \(applied) applied; \(replacement.instance) replaces it"
      )
    }
    guard await Self.waitUntilApplied(plan.stopAtApplied, run) else { return done }
    let stopped = run.child(2)
    stopped.process.signal(SIGSTOP)
    let applied = run.state.appliedOutboxItems.count
    try? await Task.sleep(for: .milliseconds(run.leaseMilliseconds + 1_000))
    stopped.process.signal(SIGCONT)
    done.append(
      "SIGSTOP \(stopped.instance) at \(applied) applied, SIGCONT "
        + "\(run.leaseMilliseconds + 1_000) ms later (at \(run.state.appliedOutboxItems.count))"
    )
    return done
  }

  private static func waitUntilApplied(_ count: Int, _ run: Run) async -> Bool {
    while run.state.appliedOutboxItems.count < count {
      guard (try? await Task.sleep(for: .milliseconds(2))) != nil else { return false }
    }
    return true
  }

  /// Enqueues the entries from four writers, each with lanes of its own (so that each lane's
  /// entries are written in order): each writer's first 25 entries one per transaction of the
  /// storage (`enqueueOutboxEntry(kind:lane:idempotencyKey:arguments:at:)`), the rest in the
  /// writer's own transactions of 100 (`enqueueOutboxEntry(...on: connection)`), and the
  /// rolled-back entries in transactions of 10 that throw, between them.
  ///
  /// NB: Each transaction wakes every worker once per lane it wrote to, and each wake-up reads
  /// the lane; batches keep those reads few.
  private func enqueue(
    _ mutations: [OutboxCrashPlan.Mutation],
    rolledBack: [OutboxCrashPlan.Mutation],
    lanes: Int,
    _ run: Run
  ) async throws -> (inTransactions: Int, alone: Int) {
    struct RollBack: Error {}
    let writers = min(4, lanes)
    let kind = OutboxItemMutation.kind
    let persistence = run.persistence
    let logger = FleetPostgres.silentLogger
    return try await withThrowingTaskGroup(of: (Int, Int).self) { group in
      for writer in 0..<writers {
        let own = mutations.filter { $0.lane % writers == writer }
        let doomed = rolledBack.filter { $0.lane % writers == writer }
        group.addTask {
          let alone = Array(own.prefix(25))
          for mutation in alone {
            _ = try await persistence.enqueueOutboxEntry(
              kind: kind,
              lane: mutation.path,
              idempotencyKey: mutation.key,
              arguments: try JSONEncoder().encode(mutation),
              at: Date()
            )
          }
          var doomedBatches = stride(from: 0, to: doomed.count, by: 10).map {
            Array(doomed[$0..<min($0 + 10, doomed.count)])
          }
          var inTransactions = 0
          for start in stride(from: alone.count, to: own.count, by: 100) {
            let batch = Array(own[start..<min(start + 100, own.count)])
            _ = try await run.postgres.withTransaction(logger: logger) { connection in
              try await Self.enqueue(batch, in: persistence, on: connection)
            }
            inTransactions += batch.count
            if !doomedBatches.isEmpty {
              let doomedBatch = doomedBatches.removeFirst()
              do {
                _ = try await run.postgres.withTransaction(logger: logger) { connection in
                  try await Self.enqueue(doomedBatch, in: persistence, on: connection)
                  throw RollBack()
                }
              } catch let error as PostgresTransactionError where error.closureError is RollBack {
              }
            }
          }
          return (inTransactions, alone.count)
        }
      }
      var total = (inTransactions: 0, alone: 0)
      for try await (inTransactions, alone) in group {
        total.inTransactions += inTransactions
        total.alone += alone
      }
      return total
    }
  }

  private static func enqueue(
    _ batch: [OutboxCrashPlan.Mutation],
    in persistence: PostgresPersistence,
    on connection: PostgresConnection
  ) async throws {
    for mutation in batch {
      try await persistence.enqueueOutboxEntry(
        kind: OutboxItemMutation.kind,
        arguments: mutation,
        lane: mutation.path,
        idempotencyKey: mutation.key,
        on: connection
      )
    }
  }

  private func outboxCount(_ run: Run) async throws -> Int {
    let rows = try await run.postgres.query(
      "SELECT count(*)::bigint FROM \(unescaped: run.namespace.name)_outbox"
    )
    for try await row in rows {
      return Int(try row.decode(Int64.self))
    }
    return -1
  }

  // MARK: - Helpers

  /// Prints each child's fills.
  private static func describe(_ reports: [FleetFetchReport], _ run: Run) {
    for report in reports {
      let counters = report.counters
      run.terminal.event(
        report.key,
        "values from \(report.valuesByFetcher.sorted { $0.key < $1.key }.map { "\($0.key) × \($0.value)" }.joined(separator: ", ")); "
          + "fills led \(counters.fillsLed), followed \(counters.fillsFollowed), taken over "
          + "\(counters.fillsTakenOver), served fresh \(counters.fillsServedFresh), refused "
          + "\(counters.fillsRefused)"
      )
    }
  }

  /// Waits for each child's `started` line of `key`; returns how many came.
  private static func takeStarted(key: String, from children: [FleetChildHandle]) async -> Int {
    var started = 0
    for child in children {
      let line = await child.take(within: .seconds(30)) { line in
        if case .started(let started) = line, started == key { true } else { nil }
      }
      if line != nil { started += 1 }
    }
    return started
  }

  private static func takeReport(
    key: String,
    from child: FleetChildHandle,
    within timeout: Duration
  ) async -> FleetFetchReport? {
    await child.take(within: timeout) { line in
      if case .fetched(let report) = line, report.key == key { report } else { nil }
    }
  }

  private static func printTable(_ rows: [Row], _ terminal: Terminal) {
    let header = Row(round: "round", scenario: "scenario", upstream: "upstream", result: "result")
    let width = max(([header] + rows).map(\.scenario.count).max() ?? 0, 8)
    for row in [header] + rows {
      let scenario = row.scenario.padding(toLength: width, withPad: " ", startingAt: 0)
      let upstream = row.upstream.padding(toLength: 8, withPad: " ", startingAt: 0)
      terminal.line(
        "   \(row.round.padding(toLength: 5, withPad: " ", startingAt: 0))  \(scenario)  \(upstream)  \(row.result)"
      )
    }
  }
}
