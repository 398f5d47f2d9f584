import Foundation
import Operation
import OperationPostgres
import OperationTestSupport
import PostgresNIO
import Testing

@Suite(
  .enabled(if: TestPostgres.isEnabled, TestPostgres.skipMessage),
  .timeLimit(TestPostgres.timeLimit)
)
struct PostgresFleetInvalidationTests {
  /// A query of a user, whose store another instance invalidates.
  struct UserQuery: QueryRequest, Sendable {
    let id: Int

    var path: OperationPath { ["users", self.id] }

    func fetch(
      isolation: isolated (any Actor)?,
      in context: OperationContext,
      with continuation: OperationContinuation<String, any Error>
    ) async throws -> String {
      "user \(self.id)"
    }
  }

  /// The ids of the invalidations a fleet applies, as they arrive.
  private static func appliedIDs(of fleet: PostgresFleet) -> (
    AsyncStream<Int64>, OperationSubscription
  ) {
    let (stream, continuation) = AsyncStream.makeStream(of: Int64.self)
    let subscription = fleet.subscribe { event in
      if case .invalidationApplied(let id, _, _, _) = event { continuation.yield(id) }
    }
    return (stream, subscription)
  }

  @Test func `An Invalidation On One Instance Makes The Matching Stores Of Another Stale`()
    async throws
  {
    try await TestPostgres.withFleet(count: 2) { members, _, _ throws in
      let (a, b) = (members[0], members[1])
      let relays = [
        a.fleet.relayInvalidations(of: a.client), b.fleet.relayInvalidations(of: b.client),
      ]
      defer { relays.forEach { $0.cancel() } }
      let user = b.client.store(for: UserQuery(id: 1).stale(after: .seconds(3_600)))
      let other = b.client.store(for: UserQuery(id: 2).stale(after: .seconds(3_600)))
      try await user.fetch()
      try await other.fetch()
      #expect(!user.isStale)
      let (applied, subscription) = Self.appliedIDs(of: b.fleet)
      defer { subscription.cancel() }

      await a.client.invalidate(matching: ["users", 1])
      var iterator = applied.makeAsyncIterator()
      _ = await iterator.next()
      #expect(user.isStale)
      #expect(!other.isStale)
      #expect(b.fleet.statistics.invalidationsApplied == 1)
      #expect(a.fleet.statistics.invalidationsSent == 1)
      // NB: An instance does not apply its own invalidations twice.
      #expect(a.fleet.statistics.invalidationsApplied == 0)
    }
  }

  @Test func `An Instance With No Matching Store Applies The Invalidation To Nothing`()
    async throws
  {
    try await TestPostgres.withFleet(count: 2) { members, _, _ throws in
      let (a, b) = (members[0], members[1])
      let relay = b.fleet.relayInvalidations(of: b.client)
      defer { relay.cancel() }
      let relayA = a.fleet.relayInvalidations(of: a.client)
      defer { relayA.cancel() }
      let user = b.client.store(for: UserQuery(id: 1).stale(after: .seconds(3_600)))
      try await user.fetch()
      let (applied, subscription) = Self.appliedIDs(of: b.fleet)
      defer { subscription.cancel() }

      await a.client.invalidate(matching: ["posts"])
      var iterator = applied.makeAsyncIterator()
      _ = await iterator.next()
      #expect(!user.isStale)
    }
  }

  @Test func `A Listener Whose Connection Is Killed Replays Every Invalidation It Missed, Once`()
    async throws
  {
    try await TestPostgres.withFleet(count: 2, manualDelays: false) {
      members,
      client,
      namespace throws in
      let (a, b) = (members[0], members[1])
      let relays = [
        a.fleet.relayInvalidations(of: a.client), b.fleet.relayInvalidations(of: b.client),
      ]
      defer { relays.forEach { $0.cancel() } }
      let stores = (0..<50).map {
        b.client.store(for: UserQuery(id: $0).stale(after: .seconds(3_600)))
      }
      for store in stores {
        try await store.fetch()
      }
      let (applied, subscription) = Self.appliedIDs(of: b.fleet)
      defer { subscription.cancel() }

      for id in 0..<25 {
        await a.client.invalidate(matching: ["users", id])
      }
      #expect(try await TestPostgres.terminateListeners(of: namespace, on: client) == 2)
      for id in 25..<50 {
        await a.client.invalidate(matching: ["users", id])
      }
      await a.fleet.flushInvalidations()
      var ids = [Int64]()
      for await id in applied {
        ids.append(id)
        if ids.count == 50 { break }
      }
      #expect(ids == ids.sorted())
      #expect(Set(ids).count == 50)
      #expect(stores.allSatisfy { $0.isStale })
      #expect(b.fleet.statistics.invalidationsApplied == 50)
      #expect(b.fleet.statistics.listenerConnections >= 2)
      #expect(b.problems.values.contains { $0.contains("listening connection failed") })
    }
  }

  @Test func `A Flush Whose Task Is Cancelled Returns While The Log Cannot Be Written`()
    async throws
  {
    try await TestPostgres.withFleet(count: 1) { members, client, namespace throws in
      let member = members[0]
      let relay = member.fleet.relayInvalidations(of: member.client)
      defer { relay.cancel() }
      try await client.query("DROP TABLE \(unescaped: namespace.name)_invalidations")
      let delaysBefore = member.delayer.delays.count
      await member.client.invalidate(matching: ["a"])
      // NB: The writer failed and waits out its backoff, which nothing ends.
      await member.delayer.waitForDelays(count: delaysBefore + 1)
      try #require(
        member.problems.values.contains { $0.hasPrefix("Invalidations could not be sent") }
      )

      let flush = Task { await member.fleet.flushInvalidations() }
      flush.cancel()
      await flush.value
    }
  }

  @Test func `A Path Without A Stable Key Is Reported, Not Sent`() async throws {
    try await TestPostgres.withFleet(count: 1) { members, _, _ throws in
      let member = members[0]
      let relay = member.fleet.relayInvalidations(of: member.client)
      defer { relay.cancel() }
      final class Unstable: Hashable, Sendable {
        static func == (lhs: Unstable, rhs: Unstable) -> Bool { lhs === rhs }
        func hash(into hasher: inout Hasher) {}
      }
      await member.client.invalidate(matching: [Unstable()])
      await member.fleet.flushInvalidations()
      #expect(member.fleet.statistics.invalidationsSent == 0)
      #expect(member.problems.values.count == 1)
      #expect(
        member.problems.values.first?.hasPrefix("An invalidation cannot reach the fleet") == true
      )
    }
  }

  @Test func `Invalidations Older Than An Age Are Trimmed From The Log`() async throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 1_000))
    try await TestPostgres.withFleet(count: 1, clock: clock) { members, _, _ throws in
      let member = members[0]
      let relay = member.fleet.relayInvalidations(of: member.client)
      defer { relay.cancel() }
      await member.client.invalidate(matching: ["a"])
      await member.fleet.flushInvalidations()
      clock.advance(by: 3_600)
      await member.client.invalidate(matching: ["b"])
      await member.fleet.flushInvalidations()
      #expect(try await member.fleet.trimInvalidationLog(olderThan: .seconds(60)) == 1)
    }
  }
}
