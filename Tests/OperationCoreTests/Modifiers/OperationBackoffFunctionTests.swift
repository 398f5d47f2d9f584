import OperationCore
import Testing

@Suite struct `OperationBackoffFunction tests` {
  @Test(arguments: [
    (OperationBackoffFunction.exponential(.seconds(1)), [0, 1, 2, 4, 8, 16]),
    (OperationBackoffFunction.fibonacci(.seconds(1)), [0, 1, 1, 2, 3, 5]),
    (OperationBackoffFunction.linear(.seconds(2)), [0, 2, 4, 6, 8, 10]),
    (OperationBackoffFunction.constant(.seconds(3)), [3, 3, 3, 3, 3, 3]),
    (OperationBackoffFunction.noBackoff, [0, 0, 0, 0, 0, 0]),
    (
      OperationBackoffFunction.incrementing(from: .seconds(5), by: .seconds(2)),
      [0, 5, 7, 9, 11, 13]
    ),
    (
      OperationBackoffFunction.exponential(.seconds(1)).capped(at: .seconds(5)), [0, 1, 2, 4, 5, 5]
    ),
    (OperationBackoffFunction.constant(.seconds(9)).capped(at: .seconds(4)), [4, 4, 4, 4, 4, 4]),
  ])
  func `Backoff Functions Follow Their Curves`(
    backoff: OperationBackoffFunction,
    seconds: [Int]
  ) {
    #expect((0...5).map { backoff($0) } == seconds.map { .seconds($0) })
  }

  @Test(arguments: [
    (OperationBackoffFunction.noBackoff, "No Backoff"),
    (.constant(.seconds(2)), "Constant 2.0 seconds"),
    (.exponential(.seconds(1)), "Exponential every 1.0 seconds"),
    (.linear(.seconds(1)), "Linear every 1.0 seconds"),
    (.fibonacci(.seconds(1)), "Fibonacci every 1.0 seconds"),
    (.linear(.seconds(1)).jittered(), "Linear every 1.0 seconds with jitter"),
    (
      .incrementing(from: .seconds(1), by: .seconds(2)),
      "Incrementing from 1.0 seconds by 2.0 seconds"
    ),
    (.random(in: .seconds(1) ... .seconds(2)), "Random in 1.0 seconds...2.0 seconds"),
    (
      .exponential(.seconds(1)).capped(at: .seconds(20)),
      "Exponential every 1.0 seconds, at most 20.0 seconds"
    ),
    (OperationBackoffFunction("Mine") { _ in .zero }, "Mine"),
  ])
  func `Descriptions Name The Curve`(backoff: OperationBackoffFunction, description: String) {
    #expect(backoff.description == "OperationBackoffFunction(\(description))")
  }

  @Test func `Jitter Stays Below The Base And Repeats With The Same Seed`() {
    let first = OperationBackoffFunction.linear(.seconds(10)).jittered(
      using: SeededGenerator(seed: 7)
    )
    let second = OperationBackoffFunction.linear(.seconds(10)).jittered(
      using: SeededGenerator(seed: 7)
    )
    let delays = (1...20).map { first($0) }
    #expect(delays == (1...20).map { second($0) })
    for (attempt, delay) in zip(1...20, delays) {
      #expect(delay >= .zero && delay < .seconds(10 * attempt))
    }
    #expect(Set(delays).count > 1)
    #expect(first(0) == .zero)
  }

  @Test func `Incrementing From The Step By The Step Is Linear`() {
    let incrementing = OperationBackoffFunction.incrementing(from: .seconds(3), by: .seconds(3))
    let linear = OperationBackoffFunction.linear(.seconds(3))
    #expect((0...20).map { incrementing($0) } == (0...20).map { linear($0) })
  }

  @Test func `Random Waits Stay In The Closed Range And Repeat With The Same Seed`() {
    let first = OperationBackoffFunction.random(
      in: .seconds(1) ... .seconds(2),
      using: SeededGenerator(seed: 3)
    )
    let second = OperationBackoffFunction.random(
      in: .seconds(1) ... .seconds(2),
      using: SeededGenerator(seed: 3)
    )
    let delays = (1...50).map { first($0) }
    #expect(delays == (1...50).map { second($0) })
    #expect(delays.allSatisfy { $0 >= .seconds(1) && $0 <= .seconds(2) })
    #expect(Set(delays).count > 1)
  }

  @Test func `Random Waits Can Take Both Bounds`() {
    let backoff = OperationBackoffFunction.random(
      in: OperationDuration(attoseconds: 0)...OperationDuration(attoseconds: 1),
      using: SeededGenerator(seed: 11)
    )
    let delays = Set((1...100).map { backoff($0) })
    #expect(delays == [OperationDuration(attoseconds: 0), OperationDuration(attoseconds: 1)])
  }

  @Test func `Exponential Backoff Does Not Overflow For Large Attempts`() {
    let backoff = OperationBackoffFunction.exponential(.nanoseconds(1))
    #expect(backoff(200) > .zero)
  }
}

/// A deterministic generator (SplitMix64), so that jitter is reproducible.
private struct SeededGenerator: RandomNumberGenerator, Sendable {
  var state: UInt64

  init(seed: UInt64) {
    self.state = seed
  }

  mutating func next() -> UInt64 {
    self.state &+= 0x9E37_79B9_7F4A_7C15
    var z = self.state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
