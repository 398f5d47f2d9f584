public import OperationCore

/// How long to wait between two runs of a retried or repeated request, as a function of how many
/// runs have happened.
///
/// A wait strategy wraps an ``OperationBackoffFunction``: the *n*th wait (after the *n*th run,
/// counting from 1) is `backoff(n)`. The factories follow the wait strategies of
/// danthorpe/Operations and are built from the core's backoff functions:
///
/// | Strategy | Waits | Built from |
/// |---|---|---|
/// | ``none`` | 0, 0, 0, … | ``OperationBackoffFunction/noBackoff`` |
/// | ``fixed(_:)`` | d, d, d, … | ``OperationBackoffFunction/constant(_:)`` |
/// | ``random(in:using:)`` | uniform in min…max | ``OperationBackoffFunction/random(in:using:)`` |
/// | ``incrementing(from:by:)`` | i, i + d, i + 2d, … | ``OperationBackoffFunction/incrementing(from:by:)`` |
/// | ``exponential(_:max:)`` | p, 2p, 4p, … capped | ``OperationBackoffFunction/exponential(_:)`` |
/// | ``fibonacci(_:max:)`` | 0, p, p, 2p, 3p, 5p, … capped | ``OperationBackoffFunction/fibonacci(_:)`` |
///
/// Any backoff function works too, with ``backoff(_:)``. Waits go through the context's
/// ``OperationContext/operationDelayer`` (a wait of zero or less does not ask it), so tests inject
/// a `RecordingDelayer` or `ManualDelayer` instead of sleeping:
///
/// ```swift
/// let request = ExportStatus(id: id)
///   .retrying(.repeat(times: 5), waiting: .exponential(.seconds(1), max: .seconds(30)))
/// ```
///
/// > Note: The Fibonacci strategy starts at fib(0) = 0, as in Operations, so its first wait is
/// > none; the exponential one starts at p·2⁰ = p. Both are capped at `max`.
public struct WaitStrategy: Sendable {
  /// The backoff function that gives the *n*th wait, for *n* from 1.
  public let backoff: OperationBackoffFunction

  /// Creates a wait strategy from a backoff function.
  ///
  /// - Parameter backoff: Gives the *n*th wait, for *n* from 1.
  public init(_ backoff: OperationBackoffFunction) {
    self.backoff = backoff
  }

  /// The wait after a given run.
  ///
  /// - Parameter wait: Which wait: 1 after the first run, 2 after the second, and so on.
  /// - Returns: How long to wait; zero or less means no wait.
  public func callAsFunction(_ wait: Int) -> OperationDuration {
    self.backoff(wait)
  }
}

extension WaitStrategy: CustomStringConvertible {
  /// A description such as `WaitStrategy(Constant 1.0 seconds)`.
  public var description: String {
    "WaitStrategy(\(self.backoff.rawDescription))"
  }
}

extension WaitStrategy {
  /// No wait between runs.
  public static let none = Self(.noBackoff)

  /// The same wait between every two runs (Operations' `Fixed`).
  ///
  /// - Parameter duration: The wait.
  /// - Returns: The wait strategy.
  public static func fixed(_ duration: OperationDuration) -> Self {
    Self(.constant(duration))
  }

  /// A wait picked at random from a closed range, anew every time (Operations' `Random`).
  ///
  /// ```swift
  /// let waits = WaitStrategy.random(in: .seconds(1) ... .seconds(2), using: seededGenerator)
  /// ```
  ///
  /// - Parameters:
  ///   - range: The waits to pick from; both bounds can be picked.
  ///   - generator: The source of randomness; pass a seeded one for reproducible tests.
  /// - Returns: The wait strategy.
  public static func random(
    in range: ClosedRange<OperationDuration>,
    using generator: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
  ) -> Self {
    Self(.random(in: range, using: generator))
  }

  /// A wait that starts at `initial` and grows by `increment` each time (Operations'
  /// `Incrementing`): i, i + d, i + 2d, …
  ///
  /// - Parameters:
  ///   - initial: The first wait.
  ///   - increment: How much longer each later wait is.
  /// - Returns: The wait strategy.
  public static func incrementing(
    from initial: OperationDuration,
    by increment: OperationDuration
  ) -> Self {
    Self(.incrementing(from: initial, by: increment))
  }

  /// A wait that doubles each time, up to a maximum (Operations' `Exponential`): p·2ⁿ⁻¹ capped.
  ///
  /// ```swift
  /// let waits = WaitStrategy.exponential(.seconds(1), max: .seconds(20))
  /// (1...6).map { waits($0) }  // 1, 2, 4, 8, 16 and 20 seconds
  /// ```
  ///
  /// - Parameters:
  ///   - period: The first wait.
  ///   - maximum: The longest wait.
  /// - Returns: The wait strategy.
  public static func exponential(_ period: OperationDuration, max maximum: OperationDuration)
    -> Self
  {
    // NB: The core's exponential curve stops doubling after 2⁶², at wait 63.
    Self(cappedGrowth(.exponential(period), at: maximum, lastGrowingWait: 63))
  }

  /// A wait that follows the Fibonacci numbers from fib(0), up to a maximum (Operations'
  /// `Fibonacci`): 0, p, p, 2p, 3p, 5p, … capped.
  ///
  /// ```swift
  /// let waits = WaitStrategy.fibonacci(.seconds(1), max: .seconds(10))
  /// (1...8).map { waits($0) }  // 0, 1, 1, 2, 3, 5, 8 and 10 seconds
  /// ```
  ///
  /// - Parameters:
  ///   - period: The unit the Fibonacci numbers multiply.
  ///   - maximum: The longest wait.
  /// - Returns: The wait strategy.
  public static func fibonacci(_ period: OperationDuration, max maximum: OperationDuration) -> Self
  {
    let fibonacci = OperationBackoffFunction.fibonacci(period)
    // NB: The core's curve gives fib(n) for retry n; Operations' first wait is fib(0), so the
    // strategy reads the curve one step behind.
    let fromZero = OperationBackoffFunction("\(fibonacci.rawDescription) from zero") { wait in
      fibonacci(wait - 1)
    }
    // NB: fib(92) is the largest Fibonacci number an `Int` holds; it is wait 93 here.
    return Self(cappedGrowth(fromZero, at: maximum, lastGrowingWait: 93))
  }

  /// The waits of any backoff function, such as one that the core's `backoff(_:)` modifier uses.
  ///
  /// ```swift
  /// let waits = WaitStrategy.backoff(.exponential(.seconds(1)).jittered())
  /// ```
  ///
  /// - Parameter backoff: Gives the *n*th wait, for *n* from 1.
  /// - Returns: The wait strategy.
  public static func backoff(_ backoff: OperationBackoffFunction) -> Self {
    Self(backoff)
  }
}

/// Caps a curve that never shrinks, without evaluating it far past the cap.
///
/// The core's growing curves overflow after a few dozen steps, and a request repeated for hours
/// asks for thousands of waits. Once the curve reaches `maximum` every later wait is `maximum`, so
/// the wait number is clamped to the first one that reaches it, found once, here. A curve that has
/// not reached the cap by `lastGrowingWait` (a tiny or non-positive period) keeps that wait's value.
private func cappedGrowth(
  _ curve: OperationBackoffFunction,
  at maximum: OperationDuration,
  lastGrowingWait: Int
) -> OperationBackoffFunction {
  var ceiling = 1
  while ceiling < lastGrowingWait, curve(ceiling) < maximum {
    ceiling += 1
  }
  let capped = curve.capped(at: maximum)
  return OperationBackoffFunction(capped.rawDescription) { [ceiling] wait in
    capped(min(wait, ceiling))
  }
}
