import Foundation
import Operation
import OperationDemoSupport
import OperationPersistence
import OperationPostgres
import PostgresNIO

/// The fleet demo (`operation-demo fleet`): two instances of a service in one process, each with
/// its own `OperationClient`, `PostgresPersistence`, `PersistentQueryCache` and `PostgresFleet`,
/// on one PostgreSQL namespace (one cache table, one outbox table), shown step by step.
struct FleetDemo {
  /// One instance of the service.
  private struct Instance {
    let name: String
    let persistence: PostgresPersistence
    let fleet: PostgresFleet
    let cache: PersistentQueryCache
    let client: OperationClient
    let relay: OperationSubscription

    init(name: String, postgres: PostgresClient, namespace: PostgresNamespace) async throws {
      self.name = name
      self.persistence = try await PostgresPersistence(client: postgres, namespace: namespace)
      self.fleet = try await PostgresFleet(persistence: self.persistence, instance: name)
      self.cache = try await PersistentQueryCache(storage: self.persistence)
      self.client = OperationClient()
      self.relay = self.fleet.relayInvalidations(of: self.client)
    }
  }

  /// Runs the demo.
  ///
  /// - Returns: Whether every check passed; `true` when the demo is skipped outside CI.
  /// - Throws: The error that kept the server or the database from starting.
  func run() async throws -> Bool {
    let terminal = Terminal()
    guard let url = FleetPostgres.url else {
      let isCI = ProcessInfo.processInfo.environment["CI"] == "true"
      terminal.line(
        "fleet demo skipped: \(FleetPostgres.variable) is not set. Run it with a PostgreSQL server:"
      )
      terminal.line(
        "   Scripts/with-postgres.sh swift run --package-path Examples operation-demo fleet"
      )
      if isCI {
        terminal.line("CI=true: the fleet demo must run there, so the skip is a failure.")
      }
      return !isCI
    }
    let checks = Checks(terminal: terminal)
    let state = ServerState(plan: FaultPlan(failureRate: 0, latency: .zero, seed: 1))
    let server = try await EmbeddedServer.start(state: state, port: 0)
    let api = PostsAPI(baseURL: server.baseURL)
    let postgres = PostgresClient(
      configuration: try FleetPostgres.configuration(url: url, applicationName: "fleet-demo")
    )
    let postgresTask = Task { await postgres.run() }
    let namespace = FleetPostgres.makeNamespace(prefix: "fleet_demo")
    terminal.line("fleet demo: two instances of a service, one PostgreSQL namespace")
    terminal.line("   server     \(server.baseURL.absoluteString), embedded")
    terminal.line("   postgres   \(url), namespace \(namespace.name)")

    let a = try await Instance(name: "instance-a", postgres: postgres, namespace: namespace)
    let b = try await Instance(name: "instance-b", postgres: postgres, namespace: namespace)
    let listeners = [a, b].map { instance in Task { try await instance.fleet.run() } }
    await a.fleet.waitUntilListening()
    await b.fleet.waitUntilListening()
    terminal.note("Each instance: PostgresPersistence(client:namespace:), PostgresFleet, a")
    terminal.note("PersistentQueryCache on the persistence, an OperationClient whose invalidations")
    terminal.note("the fleet relays; both fleets listen on \(namespace.name)_events.")

    do {
      try await self.steps(a: a, b: b, api: api, state: state, postgres: postgres, checks, terminal)
    } catch {
      checks.expect(false, "the demo stopped: \(error)")
    }

    for listener in listeners { listener.cancel() }
    try? await FleetPostgres.drop(namespace, on: postgres)
    postgresTask.cancel()
    await server.stop()
    terminal.line()
    terminal.line(
      "fleet demo: \(checks.passed) checks passed, \(checks.failed) failed, in "
        + "\(String(format: "%.2f", terminal.elapsed.inSeconds)) s"
    )
    return checks.failed == 0
  }

  private func steps(
    a: Instance,
    b: Instance,
    api: PostsAPI,
    state: ServerState,
    postgres: PostgresClient,
    _ checks: Checks,
    _ terminal: Terminal
  ) async throws {
    let key = "demo-item"
    terminal.step(1, "\(a.name) fetches a coalesced query")
    terminal.note("FleetItemQuery(key: \"\(key)\").coalesced(across: fleet, cache: cache,")
    terminal.note("  reusingValuesYoungerThan: .seconds(60)).deduplicated()")
    let storeA = a.client.store(
      for: FleetItemQuery.coalesced(key: key, api: api, fleet: a.fleet, cache: a.cache)
    )
    let itemA = try await storeA.fetch()
    let afterA = state.fleetUpstream.requests(forKey: key)
    terminal.event(
      a.name,
      "got \(key) fetched by \(itemA.fetchedBy); led \(a.fleet.statistics.fillsLed) fill"
    )
    checks.expect(afterA.count == 1, "one upstream call, from \(afterA.joined(separator: ", "))")

    terminal.step(2, "\(b.name) fetches the same query")
    let storeB = b.client.store(
      for: FleetItemQuery.coalesced(key: key, api: api, fleet: b.fleet, cache: b.cache)
    )
    let itemB = try await storeB.fetch()
    let afterB = state.fleetUpstream.requests(forKey: key)
    terminal.event(
      b.name,
      "got \(key) fetched by \(itemB.fetchedBy) from the shared cache; fills served fresh: "
        + "\(b.fleet.statistics.fillsServedFresh)"
    )
    checks.expect(
      afterB.count == 1 && itemB == itemA,
      "\(b.name) got \(a.name)'s value with no upstream call (\(afterB.count) call in all)"
    )

    terminal.step(3, "\(a.name) invalidates the item; \(b.name)'s store turns stale")
    let latency = Locked<Double?>(nil)
    let events = b.fleet.subscribe { event in
      guard case .invalidationApplied(_, _, let sentAt, let appliedAt) = event else { return }
      latency.withLock { $0 = appliedAt.timeIntervalSince(sentAt) * 1_000 }
    }
    defer { events.cancel() }
    terminal.note(
      "await client.invalidate(matching: [\"fleet-item\", \"\(key)\"])  // on \(a.name)"
    )
    checks.expect(!storeB.isInvalidated, "before: \(b.name)'s store is not invalidated")
    await a.client.invalidate(matching: ["fleet-item", key])
    await a.fleet.flushInvalidations()
    let deadline = ContinuousClock.now + .seconds(10)
    while !storeB.isInvalidated || latency.withLock({ $0 }) == nil, ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(2))
    }
    let applied = latency.withLock { $0 }
    terminal.event(
      b.name,
      "applied the invalidation "
        + (applied.map { "\(Verdict.format(milliseconds: $0)) after \(a.name) wrote it" } ?? "never")
        + "; store invalidated: \(storeB.isInvalidated), stale: \(storeB.isStale)"
    )
    checks.expect(
      storeB.isInvalidated && applied != nil,
      "\(b.name)'s store turned stale through the fleet's invalidation log and NOTIFY"
    )

    terminal.step(
      4,
      "\(a.name) enqueues an outbox entry in its transaction; \(b.name)'s worker delivers it"
    )
    let outbox = try await MutationOutbox(
      storage: b.persistence,
      worker: b.name,
      leaseDuration: .seconds(5)
    )
    outbox.register(OutboxItemMutation(api: api), kind: OutboxItemMutation.kind)
    let wakeUps = b.fleet.wakeOnNotifications(outbox)
    defer { wakeUps.cancel() }
    try await outbox.resume()
    terminal.note(
      "Only \(b.name) runs a MutationOutbox (fleet.wakeOnNotifications(outbox)); \(a.name) writes"
    )
    terminal.note(
      "persistence.enqueueOutboxEntry(kind:arguments:lane:idempotencyKey:on: connection)"
    )
    terminal.note("inside postgres.withTransaction, beside its own writes.")
    let item = OutboxCrashPlan.Mutation(lane: 0, index: 0)
    let start = ContinuousClock.now
    _ = try await postgres.withTransaction(logger: FleetPostgres.silentLogger) { connection in
      try await a.persistence.enqueueOutboxEntry(
        kind: OutboxItemMutation.kind,
        arguments: item,
        lane: item.path,
        idempotencyKey: "fleet-demo-\(item.key)",
        on: connection
      )
    }
    // NB: The server applies the entry before the worker removes it from the outbox.
    let deliveryDeadline = ContinuousClock.now + .seconds(10)
    var left = try await b.persistence.outboxEntries()
    while state.appliedOutboxItems.isEmpty || !left.isEmpty, ContinuousClock.now < deliveryDeadline
    {
      try? await Task.sleep(for: .milliseconds(2))
      left = try await b.persistence.outboxEntries()
    }
    let delivered = state.appliedOutboxItems
    terminal.event(
      b.name,
      delivered.isEmpty
        ? "nothing delivered within 10 s"
        : "delivered \(delivered[0].key) to POST \(delivered[0].path) "
          + "and removed it from the outbox "
          + "\((ContinuousClock.now - start).inMilliseconds) ms after the transaction began; "
          + "\(left.count) entries left"
    )
    checks.expect(
      delivered.count == 1 && left.isEmpty,
      "the entry enqueued by \(a.name) was delivered once, by \(b.name)'s worker, and the "
        + "outbox is empty"
    )
    await outbox.shutdown(gracePeriod: .seconds(1))
  }
}
