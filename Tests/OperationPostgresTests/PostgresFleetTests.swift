import Foundation
import Operation
import OperationPostgres
import OperationSynchronization
import OperationTestSupport
import PostgresNIO
import Testing

@Suite(
  .enabled(if: TestPostgres.isEnabled, TestPostgres.skipMessage),
  .timeLimit(TestPostgres.timeLimit)
)
struct PostgresFleetTests {
  /// The arguments of a delivery: its lane and its place in it.
  struct Delivery: Codable, Sendable {
    let lane: String
    let sequence: Int
  }

  /// A server that applies each idempotency key once and keeps, per lane, the order of first
  /// applications.
  final class DeliveryServer: Sendable {
    private struct State {
      var keys = Set<String>()
      var requests = 0
      var order = [String: [Int]]()
    }

    private let state = Lock(State())

    var requests: Int { self.state.withLock { $0.requests } }
    var order: [String: [Int]] { self.state.withLock { $0.order } }
    var appliedKeys: Set<String> { self.state.withLock { $0.keys } }

    func apply(_ delivery: Delivery, key: String) -> String {
      self.state.withLock { state in
        state.requests += 1
        if state.keys.insert(key).inserted {
          state.order[delivery.lane, default: []].append(delivery.sequence)
        }
        return key
      }
    }
  }

  struct Deliver: MutationRequest, Sendable {
    let server: DeliveryServer

    var path: OperationPath { ["deliver"] }

    func mutate(
      isolation: isolated (any Actor)?,
      with delivery: Delivery,
      in context: OperationContext,
      with continuation: OperationContinuation<String, any Error>
    ) async throws -> String {
      self.server.apply(delivery, key: context.idempotencyKey ?? "")
    }
  }

  private static func outbox(
    on member: FleetMember,
    server: DeliveryServer,
    delivered continuation: AsyncStream<String>.Continuation
  ) async throws -> (MutationOutbox, OperationSubscription) {
    // NB: On a clock that stands still, no claim's lease runs out however long a worker stalls on
    // a loaded machine, so each entry is delivered exactly once; expiry is the fleet test's
    // business (`operation-demo fleet-test`, in CI).
    let outbox = try await MutationOutbox(
      storage: member.fleet.persistence,
      clock: ManualOperationClock(),
      worker: member.fleet.instance
    )
    outbox.register(Deliver(server: server), kind: "deliver")
    let events = outbox.subscribe { event in
      if case .delivered(let entry) = event { continuation.yield(entry.idempotencyKey) }
    }
    let wakes = member.fleet.wakeOnNotifications(outbox)
    try await outbox.resume()
    return (
      outbox,
      OperationSubscription {
        events.cancel()
        wakes.cancel()
      }
    )
  }

  @Test func `An Entry Written In Another Instance's Transaction Is Delivered Once It Commits`()
    async throws
  {
    try await TestPostgres.withFleet(count: 1, manualDelays: false) { members, client, _ throws in
      let server = DeliveryServer()
      let (delivered, continuation) = AsyncStream.makeStream(of: String.self)
      let (outbox, subscription) = try await Self.outbox(
        on: members[0],
        server: server,
        delivered: continuation
      )
      defer { subscription.cancel() }
      let persistence = members[0].fleet.persistence
      struct Rollback: Error {}
      try? await client.withTransaction(logger: .init(label: "test")) { connection in
        try await persistence.enqueueOutboxEntry(
          kind: "deliver",
          arguments: Delivery(lane: "l", sequence: 0),
          lane: "l",
          idempotencyKey: "rolled-back",
          on: connection
        )
        throw Rollback()
      }
      _ = try await client.withTransaction(logger: .init(label: "test")) { connection in
        try await persistence.enqueueOutboxEntry(
          kind: "deliver",
          arguments: Delivery(lane: "l", sequence: 1),
          lane: "l",
          idempotencyKey: "committed",
          on: connection
        )
      }
      var iterator = delivered.makeAsyncIterator()
      #expect(await iterator.next() == "committed")
      #expect(server.appliedKeys == ["committed"])
      #expect(try await persistence.outboxEntries().isEmpty)
      await outbox.shutdown(gracePeriod: .seconds(10))
    }
  }

  @Test func `Two Workers Deliver Every Entry Of Many Lanes Once, And In Order`() async throws {
    try await TestPostgres.withFleet(count: 2, manualDelays: false) { members, client, _ throws in
      let server = DeliveryServer()
      let (delivered, continuation) = AsyncStream.makeStream(of: String.self)
      let (a, subscriptionA) = try await Self.outbox(
        on: members[0],
        server: server,
        delivered: continuation
      )
      let (b, subscriptionB) = try await Self.outbox(
        on: members[1],
        server: server,
        delivered: continuation
      )
      defer {
        subscriptionA.cancel()
        subscriptionB.cancel()
      }
      let persistence = members[0].fleet.persistence
      let lanes = 4
      let perLane = 25
      for batch in 0..<perLane {
        try await client.withTransaction(logger: .init(label: "test")) { connection in
          for lane in 0..<lanes {
            try await persistence.enqueueOutboxEntry(
              kind: "deliver",
              arguments: Delivery(lane: "lane-\(lane)", sequence: batch),
              lane: "lane-\(lane)",
              idempotencyKey: "lane-\(lane)-\(batch)",
              on: connection
            )
          }
        }
      }
      let total = lanes * perLane
      var count = 0
      for await _ in delivered {
        count += 1
        if count == total { break }
      }
      #expect(server.appliedKeys.count == total)
      #expect(server.requests == total)
      for lane in 0..<lanes {
        #expect(server.order["lane-\(lane)"] == Array(0..<perLane))
      }
      #expect(try await persistence.outboxEntries().isEmpty)
      await a.shutdown(gracePeriod: .seconds(10))
      await b.shutdown(gracePeriod: .seconds(10))
    }
  }

  @Test func `A Wait For Listening That Its Task Cancels Returns Though The Fleet Never Runs`()
    async throws
  {
    try await TestPostgres.withClient { client, namespace in
      let persistence = try await PostgresPersistence(
        client: client,
        namespace: namespace,
        timeout: TestPostgres.callTimeout
      )
      let fleet = try await PostgresFleet(persistence: persistence, instance: "idle")
      let waiting = Task { await fleet.waitUntilListening() }
      waiting.cancel()
      await waiting.value
    }
  }

  @Test func `A Listener Whose Connection Is Killed Listens Again`() async throws {
    try await TestPostgres.withFleet(count: 1, manualDelays: false) {
      members,
      client,
      namespace throws in
      let fleet = members[0].fleet
      let (events, continuation) = AsyncStream.makeStream(of: Void.self)
      let subscription = fleet.subscribe { event in
        if case .listening = event { continuation.yield() }
      }
      defer { subscription.cancel() }
      #expect(fleet.statistics.listenerConnections == 1)
      #expect(try await TestPostgres.terminateListeners(of: namespace, on: client) == 1)
      var iterator = events.makeAsyncIterator()
      await iterator.next()
      #expect(fleet.statistics.listenerConnections == 2)
      #expect(members[0].problems.values.count == 1)
    }
  }
}
