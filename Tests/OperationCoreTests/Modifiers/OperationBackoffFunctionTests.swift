import OperationCore
import Testing

@Suite struct `OperationBackoffFunction tests` {
  @Test(arguments: [
    (OperationBackoffFunction.exponential(.seconds(1)), [0, 1, 2, 4, 8, 16]),
    (OperationBackoffFunction.fibonacci(.seconds(1)), [0, 1, 1, 2, 3, 5]),
    (OperationBackoffFunction.linear(.seconds(2)), [0, 2, 4, 6, 8, 10]),
    (OperationBackoffFunction.constant(.seconds(3)), [3, 3, 3, 3, 3, 3]),
    (OperationBackoffFunction.noBackoff, [0, 0, 0, 0, 0, 0]),
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
