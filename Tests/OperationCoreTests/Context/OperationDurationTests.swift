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

  /// A unit of the floating-point and integer factories.
  enum Unit: String, CaseIterable, CustomTestStringConvertible {
    case seconds, milliseconds, microseconds, nanoseconds

    var testDescription: String { self.rawValue }

    func duration(_ count: Int64) -> OperationDuration {
      switch self {
      case .seconds: .seconds(count)
      case .milliseconds: .milliseconds(count)
      case .microseconds: .microseconds(count)
      case .nanoseconds: .nanoseconds(count)
      }
    }

    func duration(_ count: Double) -> OperationDuration {
      switch self {
      case .seconds: .seconds(count)
      case .milliseconds: .milliseconds(count)
      case .microseconds: .microseconds(count)
      case .nanoseconds: .nanoseconds(count)
      }
    }
  }

  @Test(
    arguments: Unit.allCases,
    [1_323, 1, 0, -1, -1_323, 999_999, 123_456_789_012, -987_654_321_098, 9_007_199_254_740_992]
      as [Int64]
  )
  func `A Whole Floating-Point Count Equals The Integer Count`(unit: Unit, count: Int64) {
    #expect(unit.duration(Double(count)) == unit.duration(count))
  }

  @Test func `Float And Double Counts Agree With Integers`() {
    #expect(OperationDuration.milliseconds(Float(1_323)) == .milliseconds(1_323))
    #expect(OperationDuration.seconds(Float(-7)) == .seconds(-7))
  }

  @Test(
    arguments: [
      (Unit.milliseconds, 0.5, OperationDuration.microseconds(500)),
      (.milliseconds, -0.5, .microseconds(-500)),
      (.milliseconds, 1_323.5, .microseconds(1_323_500)),
      (.milliseconds, 0.1, .microseconds(100)),
      (.seconds, 0.25, .milliseconds(250)),
      (.seconds, -1.75, .milliseconds(-1_750)),
      (.seconds, 1_000_000_000_000_000.5, .seconds(1_000_000_000_000_000) + .milliseconds(500)),
      (.microseconds, 0.5, .nanoseconds(500)),
      (.nanoseconds, 2.5, OperationDuration(attoseconds: 2_500_000_000)),
      (.nanoseconds, -0.25, OperationDuration(attoseconds: -250_000_000)),
    ]
  )
  func `A Fractional Count Rounds Only Its Fraction`(
    unit: Unit,
    count: Double,
    expected: OperationDuration
  ) {
    #expect(unit.duration(count) == expected)
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
