import Foundation
import GRDB
import Operation
import OperationPersistence
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `MutationOutbox tests` {
  private let database = TemporaryDatabase()

  private func outbox(
    network: MockNetworkObserver? = nil,
    delayer: ManualDelayer = ManualDelayer(),
    maxAttempts: Int = 10
  ) async throws -> MutationOutbox {
    try await MutationOutbox(
      storage: try self.database.open(),
      networkObserver: network,
      delayer: delayer,
      retryDelay: .constant(.seconds(1)),
      maxAttempts: maxAttempts
    )
  }

  @Test func `A Mutation Is Written Before It Runs And Removed Once Delivered`() async throws {
    let outbox = try await self.outbox()
    let server = FakeServer()
    server.hold()
    let mutation = Send(server: server).durable(in: outbox, kind: "send")
    try await outbox.resume()
    let store = OperationClient().store(for: mutation)

    let run = Task { try await store.mutate(with: "hello") }
    await server.waitForRequest()
    let entries = try await outbox.entries()
    #expect(entries.map(\.status) == [.inFlight])
    #expect(entries.first?.attempts == 1)
    #expect(server.requests.first?.key == entries.first?.idempotencyKey)

    server.release()
    #expect(try await run.value == "sent hello")
    #expect(try await outbox.entries().isEmpty)
    #expect(store.currentValue == "sent hello")
  }

  @Test func `While Offline Entries Stay Queued, Then Go In Order`() async throws {
    let network = MockNetworkObserver(initialStatus: .disconnected)
    let outbox = try await self.outbox(network: network)
    let server = FakeServer()
    let mutation = Send(server: server).durable(in: outbox, kind: "send") { _ in "one-lane" }
    try await outbox.resume()
    let store = OperationClient().store(for: mutation)

    for text in ["a", "b", "c"] {
      try await outbox.enqueue(kind: "send", arguments: text, lane: "one-lane")
    }
    let run = Task { try await store.mutate(with: "d") }
    try await self.waitForEntries(outbox, count: 4)
    #expect(server.requests.isEmpty)
    #expect(try await outbox.statistics().queued == 4)

    network.send(status: .connected)
    #expect(try await run.value == "sent d")
    #expect(server.requests.map(\.text) == ["a", "b", "c", "d"])
  }

  @Test func `A Retryable Failure Keeps The Entry And Tries Again After The Delay`() async throws {
    let delayer = ManualDelayer()
    let outbox = try await self.outbox(delayer: delayer)
    let server = FakeServer()
    server.failNext(1)
    let mutation = Send(server: server).durable(in: outbox, kind: "send")
    try await outbox.resume()

    let run = Task { try await OperationClient().store(for: mutation).mutate(with: "x") }
    await delayer.waitForDelays(count: 1)
    let entry = try #require(try await outbox.entries().first)
    #expect(entry.status == .queued)
    #expect(entry.attempts == 1)
    #expect(entry.lastError?.contains("unavailable") == true)

    delayer.resumeNext()
    #expect(try await run.value == "sent x")
    #expect(server.requests.count == 2)
    #expect(Set(server.requests.map(\.key)).count == 1)
  }

  @Test func `A Permanent Failure Is Kept For The App And The Lane Goes On`() async throws {
    let network = MockNetworkObserver(initialStatus: .disconnected)
    let outbox = try await self.outbox(network: network)
    let server = FakeServer()
    let mutation = Send(server: server).durable(in: outbox, kind: "send") { _ in "lane" }
    try await outbox.resume()
    let store = OperationClient().store(for: mutation)

    let rejected = Task { try await store.mutate(with: "reject") }
    try await self.waitForEntries(outbox, count: 1)
    let accepted = Task { try await store.mutate(with: "ok") }
    try await self.waitForEntries(outbox, count: 2)
    network.send(status: .connected)

    await #expect(throws: MutationOutbox.DeliveryError.self) { try await rejected.value }
    #expect(try await accepted.value == "sent ok")
    let failed = try #require(try await outbox.entries().first)
    #expect(failed.status == .failed)
    #expect(try await outbox.statistics().failed == 1)

    try await outbox.retry(failed)
    // NB: Retried, the entry is rejected again; then the app discards it.
    try await self.waitUntil(outbox) { $0.first?.status == .failed && $0.first?.attempts == 1 }
    try await outbox.discard(try #require(try await outbox.entries().first))
    #expect(try await outbox.entries().isEmpty)
  }

  @Test func `Queued Entries Resume After A Restart With Their Idempotency Keys`() async throws {
    let first = try await self.outbox(network: MockNetworkObserver(initialStatus: .disconnected))
    let server = FakeServer()
    _ = Send(server: server).durable(in: first, kind: "send")
    try await first.resume()
    let queued = try await first.enqueue(kind: "send", arguments: "queued", lane: "l")
    let inFlight = try await first.enqueue(kind: "send", arguments: "in flight", lane: "l")
    // NB: As if the process died while sending it: in flight, under a claim whose lease has not
    // expired. The next outbox holds the file's lock, so the claim's owner is gone.
    await first.close()
    try await DatabaseQueue(path: self.database.path).write { db in
      try db.execute(
        sql: """
          UPDATE outbox SET status = 'inFlight', attempts = 1, generation = 1,
            leaseOwner = 'a dead process', leaseExpiresAt = ? WHERE id = ?
          """,
        arguments: [Date.distantFuture.timeIntervalSince1970, inFlight.id]
      )
    }

    let second = try await self.outbox()
    _ = Send(server: server).durable(in: second, kind: "send")
    try await second.resume()
    try await self.waitUntil(second) { $0.isEmpty }
    #expect(server.requests.map(\.text) == ["queued", "in flight"])
    #expect(server.requests.map(\.key) == [queued.idempotencyKey, inFlight.idempotencyKey])
  }

  @Test func `Cancelling The Caller Leaves The Entry To Be Delivered`() async throws {
    let network = MockNetworkObserver(initialStatus: .disconnected)
    let outbox = try await self.outbox(network: network)
    let server = FakeServer()
    let mutation = Send(server: server).durable(in: outbox, kind: "send")
    try await outbox.resume()
    let run = Task { try await OperationClient().store(for: mutation).mutate(with: "kept") }
    try await self.waitForEntries(outbox, count: 1)
    run.cancel()
    await #expect(throws: CancellationError.self) { try await run.value }

    network.send(status: .connected)
    try await self.waitUntil(outbox) { $0.isEmpty }
    #expect(server.requests.map(\.text) == ["kept"])
  }

  @Test func `Entries Of An Unregistered Kind Wait For Their Registration`() async throws {
    let outbox = try await self.outbox()
    let server = FakeServer()
    try await outbox.resume()
    try await outbox.enqueue(kind: "later", arguments: "x", lane: "l")
    #expect(try await outbox.statistics().queued == 1)
    _ = Send(server: server).durable(in: outbox, kind: "later")
    try await self.waitUntil(outbox) { $0.isEmpty }
    #expect(server.requests.map(\.text) == ["x"])
  }

  @Test func `A Delivery Runs With The Caller's Context, A Resumed One With The Outbox's`()
    async throws
  {
    let server = FakeServer()
    var clientContext = OperationContext()
    clientContext.label = "client"
    let network = MockNetworkObserver(initialStatus: .disconnected)
    let outbox = try await self.outbox(network: network)
    let mutation = Send(server: server, echoesLabel: true).durable(in: outbox, kind: "send")
    try await outbox.resume()
    let run = Task {
      try await OperationClient(defaultContext: clientContext).store(for: mutation).mutate(
        with: "a"
      )
    }
    try await self.waitForEntries(outbox, count: 1)
    network.send(status: .connected)
    #expect(try await run.value == "sent a from client")
    await outbox.close()

    var resumedContext = OperationContext()
    resumedContext.label = "outbox"
    let first = try await self.outbox(network: MockNetworkObserver(initialStatus: .disconnected))
    try await first.enqueue(kind: "send", arguments: "b", lane: "l")
    await first.close()
    let second = try await MutationOutbox(
      storage: try self.database.open(),
      context: resumedContext
    )
    _ = Send(server: server, echoesLabel: true).durable(in: second, kind: "send")
    try await second.resume()
    try await self.waitUntil(second) { $0.isEmpty }
    #expect(server.requests.last?.text == "b from outbox")
  }

  @Test func `Retried Attempts Of One Run Wait For One Entry`() async throws {
    let outbox = try await self.outbox()
    let server = FakeServer()
    let mutation = Send(server: server).durable(in: outbox, kind: "send").retry(limit: 2)
    try await outbox.resume()
    let store = OperationClient().store(for: mutation)
    await #expect(throws: MutationOutbox.DeliveryError.self) {
      try await store.mutate(with: "reject")
    }
    // NB: The first attempt's entry failed for good; the retries found it and did not send again.
    #expect(server.requests.count == 1)
    let entries = try await outbox.entries()
    #expect(entries.count == 1)
    #expect(entries.first?.status == .failed)
  }

  @Test func `Entries Enqueued Before Resume Are Delivered Once, In Order`() async throws {
    let outbox = try await self.outbox()
    let server = FakeServer()
    _ = Send(server: server).durable(in: outbox, kind: "send")
    for text in ["a", "b", "c"] {
      try await outbox.enqueue(kind: "send", arguments: text, lane: "l")
    }
    try await outbox.resume()
    try await self.waitUntil(outbox) { $0.isEmpty }
    #expect(server.requests.map(\.text) == ["a", "b", "c"])
  }

  // MARK: Faults

  @Test func `A Failed Removal After Delivery Answers The Caller And Is Written Again`()
    async throws
  {
    let storage = FailingStorage(base: try self.database.open())
    let delayer = ManualDelayer()
    let failures = Recorder<String>()
    let outbox = try await MutationOutbox(
      storage: storage,
      delayer: delayer,
      storageRetryDelay: .constant(.milliseconds(100)),
      onStorageFailure: { entry, error in failures.record("\(entry.id): \(error)") }
    )
    let server = FakeServer()
    let mutation = Send(server: server).durable(in: outbox, kind: "send") { _ in "lane" }
    try await outbox.resume()
    let store = OperationClient().store(for: mutation)

    storage.fail(.remove, times: 2)
    // NB: On the old outbox the caller waited here for good: the lane stopped at the failed
    // removal, and nothing wrote it again.
    #expect(try await store.mutate(with: "first") == "sent first")
    #expect(failures.values.count == 1)
    let second = Task { try await store.mutate(with: "second") }
    try await self.waitForEntries(outbox, count: 2)
    // NB: The lane waits for the removal, so the storage never keeps the first behind the second.
    #expect(server.requests.map(\.text) == ["first"])

    await delayer.waitForDelays(count: 1)
    _ = delayer.resumeNext()
    await delayer.waitForDelays(count: 2)
    #expect(failures.values.count == 2)
    #expect(delayer.delays == [.milliseconds(100), .milliseconds(100)])
    _ = delayer.resumeNext()
    #expect(try await second.value == "sent second")
    #expect(server.requests.map(\.text) == ["first", "second"])
    #expect(try await outbox.entries().isEmpty)
  }

  @Test func `A Write Lock Held By Another Connection Delays The Bookkeeping, Not The Caller`()
    async throws
  {
    let storage = try SQLitePersistence(path: self.database.path, busyTimeout: 0.05)
    let delayer = ManualDelayer()
    let failures = Recorder<String>()
    let outbox = try await MutationOutbox(
      storage: storage,
      delayer: delayer,
      onStorageFailure: { _, error in failures.record("\(error)") }
    )
    let server = FakeServer()
    server.hold()
    let mutation = Send(server: server).durable(in: outbox, kind: "send")
    try await outbox.resume()
    let run = Task { try await OperationClient().store(for: mutation).mutate(with: "x") }
    await server.waitForRequest()

    // NB: Another connection (another process, say) holds the database's write lock past the
    // busy timeout.
    var configuration = Configuration()
    configuration.allowsUnsafeTransactions = true
    let other = try DatabaseQueue(path: self.database.path, configuration: configuration)
    try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
    await #expect(throws: (any Error).self) {
      try await storage.removeFailedOutboxEntry(id: 999)
    }
    server.release()
    #expect(try await run.value == "sent x")
    #expect(failures.values.first?.contains("locked") == true)
    #expect(try await outbox.entries().count == 1)

    try await other.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
    await delayer.waitForDelays(count: 1)
    _ = delayer.resumeNext()
    try await self.waitUntil(outbox) { $0.isEmpty }
  }

  @Test func `A Failed Write Of A New Entry Throws To The Caller And Queues Nothing`()
    async throws
  {
    let storage = FailingStorage(base: try self.database.open())
    let outbox = try await MutationOutbox(storage: storage)
    let server = FakeServer()
    let mutation = Send(server: server).durable(in: outbox, kind: "send")
    try await outbox.resume()
    storage.fail(.enqueue, times: 1)
    await #expect(throws: FailingStorage.DiskFull.self) {
      try await OperationClient().store(for: mutation).mutate(with: "lost")
    }
    #expect(try await outbox.entries().isEmpty)
    #expect(server.requests.isEmpty)
  }

  @Test func `A Second Outbox On One Database Is Refused, Naming The First`() async throws {
    let first = try await self.outbox()
    let error = await #expect(throws: MutationOutbox.OutboxClaimedError.self) {
      try await self.outbox()
    }
    #expect(error?.owner.contains("process \(ProcessInfo.processInfo.processIdentifier)") == true)
    await first.close()
    let second = try await self.outbox()
    await second.close()
  }

  @Test func `A Closed Outbox Never Releases The Claim Of The Next One On Its Storage`()
    async throws
  {
    let storage = try self.database.open()
    var first: MutationOutbox? = try await MutationOutbox(storage: storage)
    await first?.close()
    let second = try await MutationOutbox(storage: storage)
    first = nil
    #expect(first == nil)
    await #expect(throws: MutationOutbox.OutboxClaimedError.self) {
      try await MutationOutbox(storage: try self.database.open())
    }
    await second.close()
  }

  @Test func `Closing Answers The Callers And Leaves Their Entries`() async throws {
    let network = MockNetworkObserver(initialStatus: .disconnected)
    let outbox = try await self.outbox(network: network)
    let mutation = Send(server: FakeServer()).durable(in: outbox, kind: "send")
    try await outbox.resume()
    let run = Task { try await OperationClient().store(for: mutation).mutate(with: "later") }
    try await self.waitForEntries(outbox, count: 1)
    await outbox.close()
    await #expect(throws: MutationOutbox.ClosedError.self) { try await run.value }
    #expect(try await outbox.entries().map(\.status) == [.queued])
  }

  // MARK: Claims

  @Test func `A Worker Whose Lease Expired Is Fenced Off, And The Server Applies The Key Once`()
    async throws
  {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 1_000))
    let server = IdempotentServer()
    // NB: Worker A stalls mid-delivery, and its renewals never fire: its lease expires.
    var stalledContext = OperationContext()
    stalledContext.operationDelayer = ManualDelayer()
    let failures = Recorder<String>()
    let a = try await MutationOutbox(
      storage: FailingStorage(base: try self.database.open(), sharesOutbox: true),
      context: stalledContext,
      clock: clock,
      delayer: ManualDelayer(),
      worker: "a",
      leaseDuration: .seconds(30),
      onStorageFailure: { _, error in failures.record("\(error)") }
    )
    let events = Recorder<MutationOutbox.Event>()
    let subscription = a.subscribe { events.record($0) }
    defer { subscription.cancel() }
    let stalled = ApplyMutation(server: server, started: Gate(), proceed: Gate())
    let mutation = stalled.durable(in: a, kind: "apply") { _ in "lane" }
    try await a.resume()
    let run = Task { try await OperationClient().store(for: mutation).mutate(with: "x") }
    await stalled.started.wait()

    clock.advance(by: 31)
    let b = try await MutationOutbox(
      storage: FailingStorage(base: try self.database.open(), sharesOutbox: true),
      clock: clock,
      delayer: ManualDelayer(),
      worker: "b",
      leaseDuration: .seconds(30)
    )
    let taking = ApplyMutation(server: server, started: Gate(), proceed: Gate())
    b.register(taking, kind: "apply")
    try await b.resume()
    await taking.started.wait()
    let claimedByB = try #require(try await self.leases().first)
    #expect(claimedByB.owner == "b")
    #expect(claimedByB.generation == 2)

    // NB: A wakes up late: its request reaches the server, and its completion is refused.
    stalled.proceed.open()
    await #expect(throws: MutationOutbox.StaleClaimError.self) { try await run.value }
    #expect(failures.values.count == 1)
    #expect(failures.values.first?.contains("stale") == true)
    #expect(events.values.contains { if case .claimLost = $0 { true } else { false } })
    let entries = try await b.entries()
    #expect(entries.count == 1)
    #expect(entries.first?.status == .inFlight)
    #expect(entries.first?.attempts == 2)
    #expect(try await self.leases().first == claimedByB)

    taking.proceed.open()
    try await self.waitUntil(b) { $0.isEmpty }
    let key = try #require(server.requests.first)
    #expect(server.requests == [key, key])
    #expect(server.appliedKeys == [key])
    await a.close()
    await b.close()
  }

  @Test func `A Claim Is Renewed On The Context's Delayer While Its Delivery Runs`() async throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 1_000))
    let renewals = ManualDelayer()
    var context = OperationContext()
    context.operationDelayer = renewals
    let outbox = try await MutationOutbox(
      storage: try self.database.open(),
      context: context,
      clock: clock,
      delayer: ManualDelayer(),
      leaseDuration: .seconds(30)
    )
    let server = FakeServer()
    server.hold()
    _ = Send(server: server).durable(in: outbox, kind: "send")
    try await outbox.resume()
    try await outbox.enqueue(kind: "send", arguments: "x", lane: "l")
    await server.waitForRequest()
    await renewals.waitForDelays(count: 1)
    #expect(renewals.delays == [.seconds(10)])
    #expect(try await self.leases().first?.expiresAt == 1_030)

    clock.advance(by: 20)
    renewals.resumeNext()
    await renewals.waitForDelays(count: 2)
    #expect(try await self.leases().first?.expiresAt == 1_050)
    server.release()
    try await self.waitUntil(outbox) { $0.isEmpty }
    await outbox.close()
  }

  // MARK: Stopping

  @Test func `A Shutdown Lets The Delivery In Flight End, Refuses New Entries, And Returns`()
    async throws
  {
    let delayer = ManualDelayer()
    let outbox = try await self.outbox(delayer: delayer)
    let server = FakeServer()
    server.hold()
    let mutation = Send(server: server).durable(in: outbox, kind: "send") { _ in "lane" }
    try await outbox.resume()
    let store = OperationClient().store(for: mutation)
    let run = Task { try await store.mutate(with: "in flight") }
    await server.waitForRequest()
    let queued = Task { try await store.mutate(with: "queued") }
    try await self.waitForEntries(outbox, count: 2)

    let stopping = Task { await outbox.shutdown(gracePeriod: .seconds(5)) }
    await delayer.waitForDelays(count: 1)
    #expect(delayer.delays == [.seconds(5)])
    await #expect(throws: MutationOutbox.ClosedError.self) {
      try await outbox.enqueue(kind: "send", arguments: "late", lane: "lane")
    }
    server.release()
    #expect(try await run.value == "sent in flight")
    await stopping.value
    await #expect(throws: MutationOutbox.ClosedError.self) { try await queued.value }
    #expect(server.requests.map(\.text) == ["in flight"])
    #expect(try await outbox.entries().map(\.status) == [.queued])
    // NB: The storage is released: the next outbox delivers what is left.
    let next = try await self.outbox()
    _ = Send(server: server).durable(in: next, kind: "send")
    try await next.resume()
    try await self.waitUntil(next) { $0.isEmpty }
    #expect(server.requests.map(\.text) == ["in flight", "queued"])
  }

  @Test func `A Shutdown Cancels What Outlasts Its Grace Period And Gives The Claim Back`()
    async throws
  {
    let delayer = ManualDelayer()
    let outbox = try await self.outbox(delayer: delayer)
    let server = FakeServer()
    server.hold()
    let mutation = Send(server: server).durable(in: outbox, kind: "send")
    try await outbox.resume()
    let run = Task { try await OperationClient().store(for: mutation).mutate(with: "slow") }
    await server.waitForRequest()

    let stopping = Task { await outbox.shutdown(gracePeriod: .seconds(5)) }
    await delayer.waitForDelays(count: 1)
    delayer.resumeNext()
    await stopping.value
    await #expect(throws: MutationOutbox.ClosedError.self) { try await run.value }
    // NB: Given back, not merely left to expire: queued, with no lease.
    #expect(try await outbox.entries().map(\.status) == [.queued])
    #expect(try await self.leases().first?.owner == nil)
    server.release()

    let next = try await self.outbox()
    _ = Send(server: server).durable(in: next, kind: "send")
    try await next.resume()
    try await self.waitUntil(next) { $0.isEmpty }
    #expect(server.requests.map(\.text) == ["slow", "slow"])
    #expect(Set(server.requests.map(\.key)).count == 1)
  }

  // MARK: Helpers

  /// The claim columns of the outbox's entries, read from the file.
  private func leases() async throws -> [Lease] {
    try await DatabaseQueue(path: self.database.path).read { db in
      try Row.fetchAll(
        db,
        sql: "SELECT generation, leaseOwner, leaseExpiresAt FROM outbox ORDER BY id"
      ).map {
        Lease(
          generation: $0["generation"],
          owner: $0["leaseOwner"],
          expiresAt: $0["leaseExpiresAt"]
        )
      }
    }
  }

  private struct Lease: Equatable {
    let generation: Int64
    let owner: String?
    let expiresAt: Double?
  }

  private func waitForEntries(_ outbox: MutationOutbox, count: Int) async throws {
    try await self.waitUntil(outbox) { $0.count >= count }
  }

  /// Waits until the outbox's entries satisfy `condition`, checking after each change the
  /// outbox makes through its storage.
  private func waitUntil(
    _ outbox: MutationOutbox,
    _ condition: @escaping @Sendable ([MutationOutbox.Entry]) -> Bool
  ) async throws {
    let (changes, changed) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let subscription = outbox.subscribe { _ in changed.yield() }
    defer { subscription.cancel() }
    if condition(try await outbox.entries()) { return }
    for await _ in changes where condition(try await outbox.entries()) {
      return
    }
  }
}

// MARK: - Fixtures

private struct Send: MutationRequest {
  let server: FakeServer
  var echoesLabel = false

  var path: OperationPath { ["send"] }

  func mutate(
    isolation: isolated (any Actor)?,
    with text: String,
    in context: OperationContext,
    with continuation: OperationContinuation<String, any Error>
  ) async throws -> String {
    let text = self.echoesLabel ? "\(text) from \(context.label)" : text
    return try await self.server.receive(text: text, key: context.idempotencyKey ?? "")
  }
}

/// A server that records requests, can hold them, and can fail them.
private final class FakeServer: Sendable {
  struct Unavailable: Error, CustomStringConvertible {
    var description: String { "Service unavailable" }
  }

  struct Rejected: PermanentMutationFailure {}

  private struct State {
    var requests = [(text: String, key: String)]()
    var held: Gate?
    var failures = 0
  }

  private let state = Lock(State())
  private let requested = Gate()

  var requests: [(text: String, key: String)] { self.state.withLock { $0.requests } }

  func hold() { self.state.withLock { $0.held = Gate() } }
  func release() { self.state.withLock { $0.held }?.open() }
  func failNext(_ count: Int) { self.state.withLock { $0.failures = count } }
  func waitForRequest() async { await self.requested.wait() }

  func receive(text: String, key: String) async throws -> String {
    let (held, fails) = self.state.withLock { state in
      state.requests.append((text, key))
      defer { state.failures = max(0, state.failures - 1) }
      return (state.held, state.failures > 0)
    }
    self.requested.open()
    await held?.wait()
    if text.hasPrefix("reject") { throw Rejected() }
    if fails { throw Unavailable() }
    return "sent \(text)"
  }
}

extension OperationContext {
  /// A label that tells which context a delivery ran with.
  fileprivate var label: String {
    get { self[LabelKey.self] }
    set { self[LabelKey.self] = newValue }
  }

  private enum LabelKey: Key {
    static let defaultValue = "default"
  }
}
