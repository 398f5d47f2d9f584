import OperationDemoSupport
import Testing

@Suite struct `OutboxCrashPlan tests` {
  @Test func `mutations go round-robin over the lanes with stable keys and paths`() {
    let plan = OutboxCrashPlan(seed: 1, lanes: 3, perLane: 2)
    #expect(plan.total == 6)
    #expect(
      plan.mutations.map(\.key) == [
        "lane-0-item-0", "lane-1-item-0", "lane-2-item-0",
        "lane-0-item-1", "lane-1-item-1", "lane-2-item-1",
      ]
    )
    #expect(plan.mutations[4].path == "/outbox/lanes/1")
    #expect(
      plan.keysByPath == [
        "/outbox/lanes/0": ["lane-0-item-0", "lane-0-item-1"],
        "/outbox/lanes/1": ["lane-1-item-0", "lane-1-item-1"],
        "/outbox/lanes/2": ["lane-2-item-0", "lane-2-item-1"],
      ]
    )
  }

  @Test func `a seed gives the same kill points on every run`() {
    let first = OutboxCrashPlan(seed: 42, lanes: 4, perLane: 50)
    let second = OutboxCrashPlan(seed: 42, lanes: 4, perLane: 50)
    #expect(first == second)
  }

  @Test func `seeds spread the kill points`() {
    let plans = (1...200).map { OutboxCrashPlan(seed: $0, lanes: 4, perLane: 50) }
    #expect(Set(plans.map(\.killAfterEnqueued)).count > 50)
    #expect(Set(plans.map(\.killAtApplied)).count > 50)
  }

  @Test(arguments: 0..<500)
  func `the kill points stay inside the run`(seed: UInt64) {
    let plan = OutboxCrashPlan(seed: seed, lanes: 4, perLane: 50, paceMicroseconds: 1_000)
    // NB: The first kill leaves at least a tenth of the lines unread.
    #expect((1...180).contains(plan.killAfterEnqueued))
    #expect((0...1_500).contains(plan.killDelayMicroseconds))
    #expect((1...199).contains(plan.killAtApplied))
  }

  @Test func `the seeded generator is SplitMix64`() {
    var generator = SeededGenerator(seed: 0)
    // NB: The first outputs of SplitMix64 seeded with 0, as its reference implementation gives.
    #expect(generator.next() == 0xe220_a839_7b1d_cdaf)
    #expect(generator.next() == 0x6e78_9e6a_a1b9_65f4)
  }
}
