import ArgumentParser
import OperationDemoSupport
import Testing

@Suite struct `FleetTestOptions tests` {
  @Test func `The Defaults Are The Fleet Test Of The Brief`() throws {
    let options = try FleetTestOptions.parse([])
    #expect(options.seed == nil)
    #expect(options.callers == 1_000)
    #expect(options.invalidations == 1_000)
    #expect(options.entries == 10_000)
    #expect(options.lanes == 20)
    #expect(options.rolledBack == 100)
    #expect(options.leaseMilliseconds == 2_000)
    #expect(options.holdMilliseconds == 500)
    #expect(options.rounds == "abcde")
  }

  @Test func `The Seed Sets The Outbox Plan`() throws {
    let options = try FleetTestOptions.parse(["--seed", "7", "--entries", "400", "--lanes", "4"])
    #expect(options.outboxPlan(seed: 7) == FleetOutboxPlan(seed: 7, entries: 400, lanes: 4))
  }

  @Test(
    arguments: [
      (["--callers", "0"], "--callers must be between 1 and 10000"),
      (["--invalidations", "1"], "--invalidations must be between 2 and 10000"),
      (["--entries", "99"], "--entries must be between 100 and 100000"),
      (["--lanes", "101"], "--lanes must be between 1 and 100"),
      (["--rolled-back", "0"], "--rolled-back must be between 1 and 10000"),
      (["--lease-ms", "100"], "--lease-ms must be between 500 and 10000"),
      (["--time-limit", "5"], "--time-limit must be between 10 and 1800"),
      (["--hold-ms", "-1"], "--hold-ms must be between 0 and 5000"),
      (["--rounds", "ax"], "--rounds takes letters among a, b, c, d and e"),
      (["--rounds", ""], "--rounds takes letters"),
    ]
  )
  func `A Bad Flag Gets A Message That Names It`(arguments: [String], message: String) {
    #expect {
      _ = try FleetTestOptions.parse(arguments)
    } throws: { error in
      FleetTestOptions.message(for: error).contains(message)
        && FleetTestOptions.exitCode(for: error) != .success
    }
  }
}

@Suite struct `FleetOutboxPlan tests` {
  @Test func `Entries Go Round Robin Over The Lanes In Order`() {
    let plan = FleetOutboxPlan(seed: 1, entries: 100, lanes: 3)
    #expect(plan.mutations.count == 100)
    #expect(
      plan.mutations.prefix(4).map(\.key) == [
        "lane-0-item-0", "lane-1-item-0", "lane-2-item-0", "lane-0-item-1",
      ]
    )
    #expect(plan.keysByPath["/outbox/lanes/1"]?.prefix(2) == ["lane-1-item-0", "lane-1-item-1"])
    #expect(plan.keysByPath.values.reduce(0) { $0 + $1.count } == 100)
  }

  @Test(arguments: [1, 42, 999_999] as [UInt64])
  func `The Kills Land In The First Half And The Stop In The Third Quarter`(seed: UInt64) {
    let plan = FleetOutboxPlan(seed: seed, entries: 10_000, lanes: 20)
    #expect(plan.killsAtApplied.count == 2)
    #expect((1_000...2_500).contains(plan.killsAtApplied[0]))
    #expect((3_000...5_000).contains(plan.killsAtApplied[1]))
    #expect((5_500...7_500).contains(plan.stopAtApplied))
    #expect(plan == FleetOutboxPlan(seed: seed, entries: 10_000, lanes: 20))
  }

  @Test func `Rolled Back Entries Share No Key With Committed Ones`() {
    let plan = FleetOutboxPlan(seed: 3, entries: 10_000, lanes: 20)
    let rolledBack = FleetOutboxPlan.rolledBack(count: 100, lanes: 20)
    #expect(rolledBack.count == 100)
    #expect(Set(rolledBack.map(\.key)).count == 100)
    #expect(Set(rolledBack.map(\.key)).isDisjoint(with: plan.mutations.map(\.key)))
    #expect(Set(rolledBack.map(\.lane)) == Set(0..<20))
  }
}
