import OperationSynchronization

/// How long to wait before each retry, as a function of the attempt number and, when the function
/// asks for it, of the failure that the retry follows.
///
/// ```swift
/// PostQuery(id: 1)
///   .retry(limit: 3)
///   .backoff(.exponential(.seconds(1)))  // Waits 1 s, 2 s, then 4 s.
/// ```
///
/// A function made with ``init(_:_:)-(_,(Int,any Error)->OperationDuration)`` sees the error, so
/// that a server's answer can set the wait; ``honoringRetryAfter(atMost:)`` does this for errors
/// that carry a `Retry-After` (``RetryAfterProviding``).
public struct OperationBackoffFunction: Sendable {
  private let backoff: @Sendable (Int, (any Error)?) -> OperationDuration

  /// What the function does, without the `OperationBackoffFunction(…)` wrapper of
  /// ``description``, for example `Exponential every 1.0 seconds`.
  public let rawDescription: String

  /// Creates a backoff function of the attempt number.
  ///
  /// - Parameters:
  ///   - description: Says what the function does.
  ///   - backoff: Returns the wait before a given retry attempt, starting at 1.
  public init(
    _ description: @autoclosure () -> String = "Custom",
    _ backoff: @escaping @Sendable (Int) -> OperationDuration
  ) {
    self.rawDescription = description()
    self.backoff = { attempt, _ in backoff(attempt) }
  }

  /// Creates a backoff function of the attempt number and the failure that the retry follows.
  ///
  /// ```swift
  /// let backoff = OperationBackoffFunction("Slower when throttled") { attempt, error in
  ///   error is ThrottledError ? .seconds(30) : .seconds(attempt)
  /// }
  /// ```
  ///
  /// Called without an error (``callAsFunction(_:)``), the function gets a
  /// ``NoFailureError``.
  ///
  /// - Parameters:
  ///   - description: Says what the function does.
  ///   - backoff: Returns the wait before a given retry attempt, starting at 1, after a failure.
  public init(
    _ description: @autoclosure () -> String = "Custom",
    _ backoff: @escaping @Sendable (_ attempt: Int, _ error: any Error) -> OperationDuration
  ) {
    self.rawDescription = description()
    self.backoff = { attempt, error in backoff(attempt, error ?? NoFailureError()) }
  }

  /// The wait before a retry attempt, when no failure is known.
  ///
  /// - Parameter attempt: The retry attempt, starting at 1.
  /// - Returns: How long to wait.
  public func callAsFunction(_ attempt: Int) -> OperationDuration {
    self.backoff(attempt, nil)
  }

  /// The wait before a retry attempt that follows a failure.
  ///
  /// `retry(limit:)` asks this way, so that a function that reads the error (such as
  /// ``honoringRetryAfter(atMost:)``) can see it.
  ///
  /// - Parameters:
  ///   - attempt: The retry attempt, starting at 1.
  ///   - error: The failure of the attempt before it.
  /// - Returns: How long to wait.
  public func callAsFunction(_ attempt: Int, after error: any Error) -> OperationDuration {
    self.backoff(attempt, error)
  }

  private init(
    raw description: String,
    _ backoff: @escaping @Sendable (Int, (any Error)?) -> OperationDuration
  ) {
    self.rawDescription = description
    self.backoff = backoff
  }

  /// The same curve under another description, or read through `transform` from this one: the
  /// error, when there is one, reaches both.
  func transformed(
    _ description: String,
    _ transform: @escaping @Sendable (OperationDuration, Int, (any Error)?) -> OperationDuration
  ) -> Self {
    Self(raw: description) { attempt, error in
      transform(self.backoff(attempt, error), attempt, error)
    }
  }

  /// The error that an error-reading backoff function receives when it is asked for a wait
  /// without a failure, through ``OperationBackoffFunction/callAsFunction(_:)``.
  public struct NoFailureError: Error, Hashable, Sendable {}
}

extension OperationBackoffFunction: CustomStringConvertible {
  /// A description such as `OperationBackoffFunction(Exponential every 1.0 seconds)`.
  public var description: String {
    "OperationBackoffFunction(\(self.rawDescription))"
  }
}

extension OperationBackoffFunction {
  /// No wait at all.
  public static let noBackoff = Self("No Backoff") { _ in .zero }

  /// The same wait before every retry.
  ///
  /// - Parameter duration: The wait.
  /// - Returns: The backoff function.
  public static func constant(_ duration: OperationDuration) -> Self {
    Self("Constant \(duration)") { _ in duration }
  }

  /// A wait that doubles with each retry: 0, d, 2d, 4d, …
  ///
  /// - Parameter duration: The first wait.
  /// - Returns: The backoff function.
  public static func exponential(_ duration: OperationDuration) -> Self {
    Self("Exponential every \(duration)") { attempt in
      guard attempt > 0 else { return .zero }
      return duration * (1 << min(attempt - 1, 62))
    }
  }

  /// A wait that grows linearly with each retry: d·n.
  ///
  /// - Parameter duration: The step.
  /// - Returns: The backoff function.
  public static func linear(_ duration: OperationDuration) -> Self {
    Self("Linear every \(duration)") { attempt in duration * attempt }
  }

  /// A wait that follows the Fibonacci sequence: 0, d, d, 2d, 3d, 5d, …
  ///
  /// - Parameter duration: The unit.
  /// - Returns: The backoff function.
  public static func fibonacci(_ duration: OperationDuration) -> Self {
    Self("Fibonacci every \(duration)") { attempt in duration * fibonacciNumber(attempt) }
  }

  /// This function's wait, scaled by a random factor in [0, 1).
  ///
  /// - Parameter generator: The source of randomness.
  /// - Returns: The jittered backoff function.
  public func jittered(
    using generator: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
  ) -> Self {
    let generator = Lock(generator)
    return self.transformed("\(self.rawDescription) with jitter") { base, _, _ in
      guard base > .zero else { return .zero }
      return generator.withLock { OperationDuration.random(in: .zero..<base, using: &$0) }
    }
  }
}

extension OperationBackoffFunction {
  /// A wait that starts at `initial` and grows by `increment` with each retry: i, i + d, i + 2d, …
  ///
  /// This is ``linear(_:)`` with a first wait of its own: `.incrementing(from: d, by: d)` equals
  /// `.linear(d)` for every retry. Attempt 0, which no retry waits for, gives no wait, as with the
  /// other growing curves.
  ///
  /// ```swift
  /// let backoff = OperationBackoffFunction.incrementing(from: .seconds(5), by: .seconds(1))
  /// backoff(1)  // 5 seconds
  /// backoff(3)  // 7 seconds
  /// ```
  ///
  /// - Parameters:
  ///   - initial: The wait before the first retry.
  ///   - increment: How much longer each later wait is than the one before.
  /// - Returns: The backoff function.
  public static func incrementing(
    from initial: OperationDuration,
    by increment: OperationDuration
  ) -> Self {
    Self("Incrementing from \(initial) by \(increment)") { attempt in
      guard attempt > 0 else { return .zero }
      return initial + increment * (attempt - 1)
    }
  }

  /// A wait picked at random, anew for every retry, from a closed range.
  ///
  /// Both bounds can be picked. Unlike ``jittered(using:)``, which scales another curve, the wait
  /// does not depend on the attempt. Pass a seeded generator to make the waits reproducible.
  ///
  /// ```swift
  /// let backoff = OperationBackoffFunction.random(in: .seconds(1) ... .seconds(2))
  /// ```
  ///
  /// - Parameters:
  ///   - range: The waits to pick from.
  ///   - generator: The source of randomness; the system's by default.
  /// - Returns: The backoff function.
  public static func random(
    in range: ClosedRange<OperationDuration>,
    using generator: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
  ) -> Self {
    let generator = Lock(generator)
    let bounds = range.lowerBound.attoseconds...range.upperBound.attoseconds
    return Self("Random in \(range.lowerBound)...\(range.upperBound)") { _ in
      OperationDuration(attoseconds: generator.withLock { Int128.random(in: bounds, using: &$0) })
    }
  }

  /// This function's wait, but never longer than `maximum`.
  ///
  /// ```swift
  /// let backoff = OperationBackoffFunction.exponential(.seconds(1)).capped(at: .seconds(20))
  /// (1...6).map { backoff($0) }  // 1, 2, 4, 8, 16 and 20 seconds
  /// ```
  ///
  /// > Note: The wrapped function is still called for every attempt, and its value is capped
  /// > afterwards; a curve that overflows for a large attempt overflows under a cap as well.
  ///
  /// - Parameter maximum: The longest wait.
  /// - Returns: The capped backoff function.
  public func capped(at maximum: OperationDuration) -> Self {
    self.transformed("\(self.rawDescription), at most \(maximum)") { base, _, _ in
      min(base, maximum)
    }
  }
}

private func fibonacciNumber(_ n: Int) -> Int {
  guard n > 0 else { return 0 }
  var (previous, current) = (0, 1)
  for _ in 1..<n {
    (previous, current) = (current, previous &+ current)
  }
  return current
}

extension OperationContext {
  /// The backoff function between retries; exponential from 1 second by default.
  public var operationBackoffFunction: OperationBackoffFunction {
    get { self[BackoffFunctionKey.self] }
    set { self[BackoffFunctionKey.self] = newValue }
  }

  private enum BackoffFunctionKey: Key {
    static let defaultValue = OperationBackoffFunction.exponential(.seconds(1))
  }
}

// MARK: - Modifier

extension OperationRequest {
  /// Sets the backoff function that retries wait by.
  ///
  /// - Parameter backoff: The backoff function.
  /// - Returns: The modified operation.
  public func backoff(
    _ backoff: OperationBackoffFunction
  ) -> ModifiedOperation<Self, _OperationBackoffFunctionModifier<Self>> {
    self.modifier(_OperationBackoffFunctionModifier(backoff: backoff))
  }
}

/// The modifier behind ``OperationRequest/backoff(_:)``.
public struct _OperationBackoffFunctionModifier<
  Operation: OperationRequest
>: _ContextUpdatingOperationModifier {
  let backoff: OperationBackoffFunction

  /// Writes the backoff function to ``OperationContext/operationBackoffFunction``.
  public func setup(context: inout OperationContext) {
    context.operationBackoffFunction = self.backoff
  }
}
