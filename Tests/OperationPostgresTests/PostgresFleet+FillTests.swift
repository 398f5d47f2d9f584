import Foundation
import Operation
import OperationTestSupport
import Testing

@testable import OperationPostgres

@Suite(
  .enabled(if: TestPostgres.isEnabled, TestPostgres.skipMessage),
  .timeLimit(TestPostgres.timeLimit)
)
struct PostgresFleetFillTests {
  @Test func `Concurrent Misses On Three Instances Make One Upstream Call`() async throws {
    try await TestPostgres.withFleet(count: 3) { members, _, _ throws in
      let upstream = Upstream()
      let release = upstream.hold(call: 1)
      let (a, b, c) = (members[0], members[1], members[2])
      let leader = Task { try await a.client.store(for: a.item(1, upstream: upstream)).fetch() }
      await upstream.started(call: 1).wait()
      let first = Task { try await b.client.store(for: b.item(1, upstream: upstream)).fetch() }
      let second = Task { try await c.client.store(for: c.item(1, upstream: upstream)).fetch() }
      // NB: Each follower waits for the notification, or for the lease's expiry.
      await b.delayer.waitForDelays(count: 1)
      await c.delayer.waitForDelays(count: 1)

      release.open()
      let values = try await [leader.value, first.value, second.value]
      #expect(values == Array(repeating: "item 1 #1", count: 3))
      #expect(upstream.calls == 1)
      #expect(a.fleet.statistics.fillsLed == 1)
      #expect(b.fleet.statistics.fillsFollowed == 1)
      #expect(c.fleet.statistics.fillsFollowed == 1)
    }
  }

  @Test func `A Stalled Leader Is Taken Over, And Its Late Value Never Reaches The Cache`()
    async throws
  {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 1_000))
    try await TestPostgres.withFleet(count: 2, clock: clock) { members, _, _ throws in
      let upstream = Upstream()
      let stalled = upstream.hold(call: 1)
      let (a, b) = (members[0], members[1])
      let leader = Task { try await a.client.store(for: a.item(7, upstream: upstream)).fetch() }
      await upstream.started(call: 1).wait()
      let follower = Task { try await b.client.store(for: b.item(7, upstream: upstream)).fetch() }
      await b.delayer.waitForDelays(count: 1)

      // NB: A never renews (its delayer never fires): past its lease, B takes the fill over.
      clock.advance(by: 11)
      b.delayer.resumeAll()
      #expect(try await follower.value == "item 7 #2")
      #expect(b.fleet.statistics.fillsTakenOver == 1)

      stalled.open()
      #expect(try await leader.value == "item 7 #1")
      #expect(a.fleet.statistics.fillsRefused == 1)
      let saved = try #require(await b.cache.load(String.self, forKey: Self.key(7)))
      #expect(saved.value == "item 7 #2")
      #expect(upstream.calls == 2)
    }
  }

  @Test func `The Followers Of A Failed Leader Get Its Error`() async throws {
    try await TestPostgres.withFleet(count: 2) { members, _, _ throws in
      let upstream = Upstream()
      let release = upstream.hold(call: 1)
      upstream.fail(call: 1)
      let (a, b) = (members[0], members[1])
      let leader = Task { try await a.client.store(for: a.item(2, upstream: upstream)).fetch() }
      await upstream.started(call: 1).wait()
      let follower = Task { try await b.client.store(for: b.item(2, upstream: upstream)).fetch() }
      await b.delayer.waitForDelays(count: 1)

      release.open()
      await #expect(throws: Upstream.Failure.self) { try await leader.value }
      let error = await #expect(throws: PostgresFleet.FillFailedError.self) {
        try await follower.value
      }
      #expect(error?.leaderError == "upstream answered 503")
      #expect(upstream.calls == 1)
    }
  }

  @Test func `A Cancelled Leader Hands The Fill To A Follower At Once`() async throws {
    try await TestPostgres.withFleet(count: 2) { members, _, _ throws in
      let upstream = Upstream()
      _ = upstream.hold(call: 1)
      let (a, b) = (members[0], members[1])
      let leader = Task { try await a.fleet.fillForTest(key: "k", upstream: upstream) }
      await upstream.started(call: 1).wait()
      let follower = Task { try await b.fleet.fillForTest(key: "k", upstream: upstream) }
      await b.delayer.waitForDelays(count: 1)

      leader.cancel()
      // NB: No time passes: the follower is woken by the leader's notification.
      #expect(try await follower.value == "k #2")
      #expect(b.fleet.statistics.fillsTakenOver == 1)
    }
  }

  @Test func `A Value Fresh Enough In The Shared Cache Is Served With No Call`() async throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 1_000))
    try await TestPostgres.withFleet(count: 2, clock: clock) { members, _, _ throws in
      let upstream = Upstream()
      let (a, b) = (members[0], members[1])
      let query = { (member: FleetMember) in
        member.item(3, upstream: upstream, maxAge: .seconds(60))
      }
      #expect(try await a.client.store(for: query(a)).fetch() == "item 3 #1")
      clock.advance(by: 30)
      #expect(try await b.client.store(for: query(b)).fetch() == "item 3 #1")
      #expect(b.fleet.statistics.fillsServedFresh == 1)
      clock.advance(by: 31)
      #expect(try await b.client.store(for: query(b)).fetch() == "item 3 #2")
      #expect(upstream.calls == 2)
    }
  }

  @Test func `A Follower Waits No Longer Than Its Maximum`() async throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 1_000))
    try await TestPostgres.withFleet(count: 2, clock: clock) { members, _, _ throws in
      let upstream = Upstream()
      let release = upstream.hold(call: 1)
      let (a, b) = (members[0], members[1])
      let leader = Task { try await a.client.store(for: a.item(4, upstream: upstream)).fetch() }
      await upstream.started(call: 1).wait()
      let follower = Task {
        try await b.client.store(for: b.item(4, upstream: upstream, maxWait: .seconds(5))).fetch()
      }
      await b.delayer.waitForDelays(count: 1)
      clock.advance(by: 6)
      b.delayer.resumeAll()
      let error = await #expect(throws: PostgresFleet.FillTimeoutError.self) {
        try await follower.value
      }
      #expect(error?.waited == .seconds(5))
      release.open()
      _ = try await leader.value
    }
  }

  @Test func `A Cache On Another Storage Is Refused With A Clear Error`() async throws {
    try await TestPostgres.withFleet(count: 2) { members, _, _ throws in
      let query = ItemQuery(id: 5, upstream: Upstream())
        .coalesced(across: members[0].fleet, cache: members[1].cache)
      await #expect(throws: PostgresFleet.CacheMismatchError.self) {
        try await members[0].client.store(for: query).fetch()
      }
    }
  }

  private static func key(_ id: Int) -> String {
    // NB: The cache's key of `ItemQuery(id:)`, as the modifier computes it.
    try! PersistentQueryCache.key(for: ["fleet-item", id], operationType: ItemQuery.self)
  }
}

extension PostgresFleet {
  /// A fill of `key` whose upstream call is `upstream.call(key)`.
  func fillForTest(key: String, upstream: Upstream) async throws -> String {
    try await self.fill(key: key, version: "v", maxAge: nil, maxWait: .seconds(60)) {
      try await upstream.call(key)
    }
  }
}
