import Foundation
import OperationCore
import Testing

@Suite struct `OperationDuration tests` {
  @Test(
    arguments: [
      (OperationDuration.seconds(1), OperationDuration.milliseconds(1_000)),
      (.milliseconds(1), .microseconds(1_000)),
      (.microseconds(1), .nanoseconds(1_000)),
      (.seconds(1.5), .milliseconds(1_500)),
      (.milliseconds(1.5), .microseconds(1_500)),
      (.microseconds(2.5), .nanoseconds(2_500)),
      (.nanoseconds(1.0), .nanoseconds(1)),
      (.seconds(0), .zero),
    ]
  )
  func `Equal Spans From Different Units Are Equal`(lhs: OperationDuration, rhs: OperationDuration)
  {
    #expect(lhs == rhs)
    #expect(lhs.hashValue == rhs.hashValue)
  }

  @Test func `Milliseconds With A Fraction Keep The Fraction`() {
    let duration = OperationDuration.milliseconds(1.5)
    #expect(duration.components == (seconds: 0, attoseconds: 1_500_000_000_000_000))
  }

  @Test(
    arguments: [
      (Int64(1), Int64(1_500_000_000_000_000_000), Int64(2), Int64(500_000_000_000_000_000)),
      (1, -500_000_000_000_000_000, 0, 500_000_000_000_000_000),
      (-1, 500_000_000_000_000_000, 0, -500_000_000_000_000_000),
      (0, -2_500_000_000_000_000_000, -2, -500_000_000_000_000_000),
      (3, 0, 3, 0),
    ]
  )
  func `Components Are Normalised`(
    seconds: Int64,
    attoseconds: Int64,
    expectedSeconds: Int64,
    expectedAttoseconds: Int64
  ) {
    let duration = OperationDuration(secondsComponent: seconds, attosecondsComponent: attoseconds)
    #expect(duration.components == (expectedSeconds, expectedAttoseconds))
  }

  @Test func `Arithmetic Operators Compute Spans`() {
    #expect(OperationDuration.seconds(1) + .milliseconds(500) == .milliseconds(1_500))
    #expect(OperationDuration.seconds(1) - .milliseconds(1_500) == .milliseconds(-500))
    #expect(OperationDuration.milliseconds(250) * 4 == .seconds(1))
    #expect(OperationDuration.seconds(1) / 4 == .milliseconds(250))
    #expect(OperationDuration.seconds(3) / OperationDuration.seconds(2) == 1.5)
    #expect(-OperationDuration.seconds(2) == .seconds(-2))

    var duration = OperationDuration.seconds(2)
    duration.negate()
    #expect(duration == .seconds(-2))
    duration *= 3
    #expect(duration == .seconds(-6))
    duration /= 2
    #expect(duration == .seconds(-3))
  }

  @Test func `Comparisons Order By Length`() {
    #expect(OperationDuration.milliseconds(999) < .seconds(1))
    #expect(OperationDuration.seconds(-1) < .zero)
    #expect(OperationDuration.seconds(-1) < .milliseconds(-500))
    #expect(OperationDuration.seconds(2) > .milliseconds(1_999))
    #expect(OperationDuration.seconds(1) <= .milliseconds(1_000))
  }

  @Test(
    arguments: [
      Duration.seconds(2), .milliseconds(1_500), .nanoseconds(7), .seconds(-3), .zero,
    ]
  )
  func `Duration Round Trip Keeps The Value`(duration: Duration) {
    let converted = OperationDuration(duration: duration)
    #expect(Duration(duration: converted) == duration)
    #expect(converted.components == duration.components)
  }

  @Test(arguments: [OperationDuration.seconds(2), .milliseconds(1.5), .seconds(-3), .zero])
  func `Codable Round Trip Keeps The Value`(duration: OperationDuration) throws {
    let data = try JSONEncoder().encode(duration)
    #expect(try JSONDecoder().decode(OperationDuration.self, from: data) == duration)
  }

  @Test func `Encodes As An Unkeyed Pair`() throws {
    let data = try JSONEncoder().encode(OperationDuration.milliseconds(1_500))
    #expect(String(decoding: data, as: UTF8.self) == "[1,500000000000000000]")
  }

  @Test func `Attoseconds Round Trip Keeps The Value`() {
    let duration = OperationDuration.milliseconds(-2_500)
    #expect(duration.attoseconds == -2_500_000_000_000_000_000)
    #expect(OperationDuration(attoseconds: duration.attoseconds) == duration)
  }

  @Test func `Random Duration Lies In The Range`() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<100 {
      let duration = OperationDuration.random(in: .seconds(1)..<(.seconds(2)), using: &generator)
      #expect(duration >= .seconds(1) && duration < .seconds(2))
    }
  }

  @Test func `Description Counts Seconds`() {
    #expect(OperationDuration.milliseconds(1_500).description == "1.5 seconds")
  }
}
