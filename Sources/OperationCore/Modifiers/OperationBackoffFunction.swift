/// How long to wait before each retry, as a function of the attempt number.
///
/// ```swift
/// PostQuery(id: 1)
///   .retry(limit: 3)
///   .backoff(.exponential(.seconds(1)))  // Waits 1 s, 2 s, then 4 s.
/// ```
public struct OperationBackoffFunction: Sendable {
  private let backoff: @Sendable (Int) -> OperationDuration

  /// What the function does, without the `OperationBackoffFunction(…)` wrapper of
  /// ``description``, for example `Exponential every 1.0 seconds`.
  public let rawDescription: String

  /// Creates a backoff function.
  ///
  /// - Parameters:
  ///   - description: Says what the function does.
  ///   - backoff: Returns the wait before a given retry attempt, starting at 1.
  public init(
    _ description: @autoclosure () -> String = "Custom",
    _ backoff: @escaping @Sendable (Int) -> OperationDuration
  ) {
    self.rawDescription = description()
    self.backoff = backoff
  }

  /// The wait before a retry attempt.
  ///
  /// - Parameter attempt: The retry attempt, starting at 1.
  /// - Returns: How long to wait.
  public func callAsFunction(_ attempt: Int) -> OperationDuration {
    self.backoff(attempt)
  }
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
    return Self("\(self.rawDescription) with jitter") { attempt in
      let base = self(attempt)
      guard base > .zero else { return .zero }
      return generator.withLock { OperationDuration.random(in: .zero..<base, using: &$0) }
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
