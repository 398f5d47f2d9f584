import OperationCore
import OperationGraph
import Testing

@Suite struct `WaitStrategy tests` {
  /// The sequences that danthorpe/Operations' `RepeatedOperationTests` pins for its generators.
  @Test(arguments: [
    (WaitStrategy.exponential(.seconds(1), max: .seconds(20)), [1, 2, 4, 8, 16, 20]),
    (WaitStrategy.fibonacci(.seconds(1), max: .seconds(10)), [0, 1, 1, 2, 3, 5, 8, 10]),
    (WaitStrategy.incrementing(from: .seconds(1), by: .seconds(1)), [1, 2, 3, 4, 5, 6]),
    (WaitStrategy.fixed(.seconds(1)), [1, 1, 1]),
    (WaitStrategy.none, [0, 0, 0]),
  ])
  func `Strategies Follow The Peer Sequences`(wait: WaitStrategy, seconds: [Int]) {
    #expect((1...seconds.count).map { wait($0) } == seconds.map { .seconds($0) })
  }

  @Test func `Random Waits Stay Within Their Bounds`() {
    let wait = WaitStrategy.random(
      in: .seconds(1) ... .seconds(2),
      using: WorkSeededGenerator(seed: 42)
    )
    let waits = (1...100).map { wait($0) }
    #expect(waits.allSatisfy { $0 >= .seconds(1) && $0 <= .seconds(2) })
    #expect(Set(waits).count > 1)
  }

  @Test func `Random Waits Repeat With The Same Seed`() {
    let first = WaitStrategy.random(in: .zero ... .seconds(5), using: WorkSeededGenerator(seed: 9))
    let second = WaitStrategy.random(in: .zero ... .seconds(5), using: WorkSeededGenerator(seed: 9))
    #expect((1...20).map { first($0) } == (1...20).map { second($0) })
  }

  @Test(arguments: [
    WaitStrategy.exponential(.seconds(5), max: .seconds(60)),
    WaitStrategy.fibonacci(.seconds(5), max: .seconds(60)),
  ])
  func `Capped Curves Stay At The Cap For Any Number Of Waits`(wait: WaitStrategy) {
    // NB: Uncapped, both curves would overflow a duration long before these wait numbers.
    for number in [30, 100, 10_000, Int.max] {
      #expect(wait(number) == .seconds(60))
    }
  }

  @Test func `A Tiny Period Still Grows To The Cap`() {
    let exponential = WaitStrategy.exponential(.nanoseconds(1), max: .seconds(3600))
    let fibonacci = WaitStrategy.fibonacci(.nanoseconds(1), max: .seconds(3600))
    #expect(exponential(42) < .seconds(3600))
    #expect(exponential(1_000) == .seconds(3600))
    // NB: fib(61) nanoseconds are about 2,505 seconds, past the 62 steps a naive search would stop
    // at.
    #expect(fibonacci(62) < .seconds(3600))
    #expect(fibonacci(1_000) == .seconds(3600))
  }

  @Test func `A Non Positive Period Never Waits`() {
    let wait = WaitStrategy.exponential(.zero, max: .seconds(10))
    #expect([1, 2, 100].map { wait($0) } == [.zero, .zero, .zero])
  }

  @Test func `Backoff Strategies Use The Function As It Is`() {
    let wait = WaitStrategy.backoff(.linear(.seconds(2)))
    #expect((1...3).map { wait($0) } == [.seconds(2), .seconds(4), .seconds(6)])
    #expect(wait.backoff.rawDescription == "Linear every 2.0 seconds")
  }

  @Test(arguments: [
    (WaitStrategy.none, "WaitStrategy(No Backoff)"),
    (.fixed(.seconds(1)), "WaitStrategy(Constant 1.0 seconds)"),
    (
      .exponential(.seconds(1), max: .seconds(20)),
      "WaitStrategy(Exponential every 1.0 seconds, at most 20.0 seconds)"
    ),
    (
      .fibonacci(.seconds(1), max: .seconds(10)),
      "WaitStrategy(Fibonacci every 1.0 seconds from zero, at most 10.0 seconds)"
    ),
  ])
  func `Descriptions Name The Curve`(wait: WaitStrategy, description: String) {
    #expect(wait.description == description)
  }
}
