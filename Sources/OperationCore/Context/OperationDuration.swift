/// A span of time that every platform can represent, made of whole seconds and attoseconds.
///
/// `OperationDuration` is what backoff functions, delayers and staleness use. It converts to and
/// from Swift's `Duration`.
///
/// ```swift
/// let backoff = OperationBackoffFunction.exponential(.seconds(1))
/// let wait: OperationDuration = .milliseconds(250) * 4
/// ```
public struct OperationDuration: Hashable, Sendable {
  private var secondsPart: Int64
  private var attosecondsPart: Int64

  /// Creates a duration from its components, normalising attoseconds into whole seconds.
  ///
  /// - Parameters:
  ///   - secondsComponent: The whole seconds.
  ///   - attosecondsComponent: The attoseconds; any amount, positive or negative.
  public init(secondsComponent: Int64, attosecondsComponent: Int64) {
    let (carry, remainder) = attosecondsComponent.quotientAndRemainder(
      dividingBy: Self.attosecondsPerSecond
    )
    var seconds = secondsComponent + carry
    var attoseconds = remainder
    // NB: Keep both components on the same side of zero, as `Duration` does.
    if seconds > 0 && attoseconds < 0 {
      seconds -= 1
      attoseconds += Self.attosecondsPerSecond
    } else if seconds < 0 && attoseconds > 0 {
      seconds += 1
      attoseconds -= Self.attosecondsPerSecond
    }
    self.secondsPart = seconds
    self.attosecondsPart = attoseconds
  }

  /// The whole seconds and the attoseconds of this duration.
  public var components: (seconds: Int64, attoseconds: Int64) {
    (self.secondsPart, self.attosecondsPart)
  }

  private static let attosecondsPerSecond: Int64 = 1_000_000_000_000_000_000
}

// MARK: - Factories

extension OperationDuration {
  /// A duration of whole seconds.
  public static func seconds(_ seconds: some BinaryInteger) -> Self {
    Self(secondsComponent: Int64(seconds), attosecondsComponent: 0)
  }

  /// A duration of seconds, with a fractional part.
  ///
  /// The whole seconds are converted exactly, and only the fraction is rounded, to the nearest
  /// attosecond: `.seconds(2.0) == .seconds(2)`.
  public static func seconds<F: BinaryFloatingPoint>(_ seconds: F) -> Self {
    Self(fractional: seconds, attosecondsPerUnit: Self.attosecondsPerSecond)
  }

  /// A duration of whole milliseconds.
  public static func milliseconds(_ milliseconds: some BinaryInteger) -> Self {
    Self.integral(Int64(milliseconds), perSecond: 1_000)
  }

  /// A duration of milliseconds, with a fractional part.
  ///
  /// The whole milliseconds are converted exactly, and only the fraction is rounded, to the
  /// nearest attosecond: `.milliseconds(1323.0) == .milliseconds(1323)`.
  public static func milliseconds<F: BinaryFloatingPoint>(_ milliseconds: F) -> Self {
    Self(fractional: milliseconds, attosecondsPerUnit: 1_000_000_000_000_000)
  }

  /// A duration of whole microseconds.
  public static func microseconds(_ microseconds: some BinaryInteger) -> Self {
    Self.integral(Int64(microseconds), perSecond: 1_000_000)
  }

  /// A duration of microseconds, with a fractional part.
  ///
  /// The whole microseconds are converted exactly, and only the fraction is rounded, to the
  /// nearest attosecond: `.microseconds(2.0) == .microseconds(2)`.
  public static func microseconds<F: BinaryFloatingPoint>(_ microseconds: F) -> Self {
    Self(fractional: microseconds, attosecondsPerUnit: 1_000_000_000_000)
  }

  /// A duration of whole nanoseconds.
  public static func nanoseconds(_ nanoseconds: some BinaryInteger) -> Self {
    Self.integral(Int64(nanoseconds), perSecond: 1_000_000_000)
  }

  /// A duration of nanoseconds, with a fractional part.
  ///
  /// The whole nanoseconds are converted exactly, and only the fraction is rounded, to the
  /// nearest attosecond: `.nanoseconds(2.0) == .nanoseconds(2)`.
  public static func nanoseconds<F: BinaryFloatingPoint>(_ nanoseconds: F) -> Self {
    Self(fractional: nanoseconds, attosecondsPerUnit: 1_000_000_000)
  }

  private static func integral(_ value: Int64, perSecond: Int64) -> Self {
    let (seconds, remainder) = value.quotientAndRemainder(dividingBy: perSecond)
    return Self(
      secondsComponent: seconds,
      attosecondsComponent: remainder * (Self.attosecondsPerSecond / perSecond)
    )
  }

  /// A duration of `value` units of `attosecondsPerUnit` attoseconds each.
  private init<F: BinaryFloatingPoint>(fractional value: F, attosecondsPerUnit: Int64) {
    // NB: Scaling the whole count by a floating-point factor such as 1e-3 is inexact (1323 ms
    // would come out 50 attoseconds short), so the whole units are split off first, which is
    // exact, and converted with integers; only the fraction, which is below one unit, is scaled
    // in floating point and rounded to the nearest attosecond.
    let whole = value.rounded(.towardZero)
    let fraction = Double(value - whole)
    let wholeAttoseconds = Int128(whole) * Int128(attosecondsPerUnit)
    let fractionAttoseconds = Int128((fraction * Double(attosecondsPerUnit)).rounded())
    self.init(attoseconds: wholeAttoseconds + fractionAttoseconds)
  }
}

// MARK: - Duration interop

extension OperationDuration {
  /// Creates an operation duration from a Swift `Duration`.
  ///
  /// - Parameter duration: The duration to convert.
  public init(duration: Duration) {
    self.init(
      secondsComponent: duration.components.seconds,
      attosecondsComponent: duration.components.attoseconds
    )
  }

  /// The total number of attoseconds.
  public var attoseconds: Int128 {
    Int128(self.secondsPart) * Int128(Self.attosecondsPerSecond) + Int128(self.attosecondsPart)
  }

  /// Creates a duration from a total number of attoseconds.
  ///
  /// - Parameter attoseconds: The total attoseconds.
  public init(attoseconds: Int128) {
    let (seconds, remainder) = attoseconds.quotientAndRemainder(
      dividingBy: Int128(Self.attosecondsPerSecond)
    )
    self.init(secondsComponent: Int64(seconds), attosecondsComponent: Int64(remainder))
  }

  /// A random duration in a range.
  ///
  /// - Parameters:
  ///   - range: The range to pick from; must not be empty.
  ///   - generator: The source of randomness.
  /// - Returns: A duration in `range`.
  public static func random(
    in range: Range<Self>,
    using generator: inout some RandomNumberGenerator
  ) -> Self {
    Self(
      attoseconds: Int128.random(
        in: range.lowerBound.attoseconds..<range.upperBound.attoseconds,
        using: &generator
      )
    )
  }

  /// A random duration in a range, from the system's random number generator.
  ///
  /// - Parameter range: The range to pick from; must not be empty.
  /// - Returns: A duration in `range`.
  public static func random(in range: Range<Self>) -> Self {
    var generator = SystemRandomNumberGenerator()
    return Self.random(in: range, using: &generator)
  }
}

extension Duration {
  /// Creates a Swift `Duration` from an operation duration.
  ///
  /// - Parameter duration: The duration to convert.
  public init(duration: OperationDuration) {
    self.init(
      secondsComponent: duration.components.seconds,
      attosecondsComponent: duration.components.attoseconds
    )
  }
}

// MARK: - Arithmetic

extension OperationDuration: Comparable {
  /// Whether the first duration is shorter than the second.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    (lhs.secondsPart, lhs.attosecondsPart) < (rhs.secondsPart, rhs.attosecondsPart)
  }
}

extension OperationDuration: AdditiveArithmetic {
  /// A duration of no time.
  public static let zero = Self(secondsComponent: 0, attosecondsComponent: 0)

  /// The sum of two durations.
  public static func + (lhs: Self, rhs: Self) -> Self {
    Self(
      secondsComponent: lhs.secondsPart + rhs.secondsPart,
      attosecondsComponent: lhs.attosecondsPart + rhs.attosecondsPart
    )
  }

  /// The difference of two durations.
  public static func - (lhs: Self, rhs: Self) -> Self {
    Self(
      secondsComponent: lhs.secondsPart - rhs.secondsPart,
      attosecondsComponent: lhs.attosecondsPart - rhs.attosecondsPart
    )
  }
}

extension OperationDuration {
  /// The duration with its sign flipped.
  public static prefix func - (duration: Self) -> Self {
    Self.zero - duration
  }

  /// Flips the sign of this duration.
  public mutating func negate() {
    self = -self
  }

  /// A duration multiplied by a whole number.
  public static func * (lhs: Self, rhs: Int) -> Self {
    Self(attoseconds: lhs.attoseconds * Int128(rhs))
  }

  /// A duration divided by a whole number, rounded toward zero.
  public static func / (lhs: Self, rhs: Int) -> Self {
    Self(attoseconds: lhs.attoseconds / Int128(rhs))
  }

  /// The ratio of two durations.
  public static func / (lhs: Self, rhs: Self) -> Double {
    Double(lhs.attoseconds) / Double(rhs.attoseconds)
  }
}

extension OperationDuration: DurationProtocol {
  /// Multiplies a duration by a whole number in place.
  public static func *= (lhs: inout Self, rhs: Int) {
    lhs = lhs * rhs
  }

  /// Divides a duration by a whole number in place, rounding toward zero.
  public static func /= (lhs: inout Self, rhs: Int) {
    lhs = lhs / rhs
  }
}

// MARK: - Description and Codable

extension OperationDuration: CustomStringConvertible {
  /// The duration in seconds, such as `1.5 seconds`.
  public var description: String {
    "\(Double(self.attoseconds) / 1e18) seconds"
  }
}

extension OperationDuration: Codable {
  /// Decodes a duration from an unkeyed container of its seconds and attoseconds components.
  ///
  /// - Parameter decoder: The decoder to read from.
  /// - Throws: An error when the container does not hold two `Int64` values.
  public init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    let seconds = try container.decode(Int64.self)
    let attoseconds = try container.decode(Int64.self)
    self.init(secondsComponent: seconds, attosecondsComponent: attoseconds)
  }

  /// Encodes the duration as an unkeyed container of its seconds and attoseconds components.
  ///
  /// - Parameter encoder: The encoder to write to.
  /// - Throws: An error when the encoder fails.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    try container.encode(self.secondsPart)
    try container.encode(self.attosecondsPart)
  }
}

extension OperationDuration {
  /// The duration in seconds, as a `Double` (`TimeInterval`).
  package var timeInterval: Double {
    Double(self.attoseconds) / 1e18
  }
}
