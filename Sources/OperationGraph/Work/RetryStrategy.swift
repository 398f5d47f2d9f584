@_spi(Warnings) import OperationCore

/// Whether a failed request runs again, decided from the number of failures so far and the latest
/// error.
///
/// A retry strategy is a value, so one strategy can serve many requests. It is what
/// 3Squared/PeakOperation's `RetryingOperation` asks after each failure, and what
/// ``OperationRequest/retrying(_:waiting:onFailedAttempt:)`` asks here:
///
/// ```swift
/// let request = UploadPhoto(photo)
///   .retrying(.repeat(times: 3), waiting: .fixed(.seconds(1)))
///
/// let picky = UploadPhoto(photo)
///   .retrying(.custom { failureCount, error in
///     failureCount < 5 && !(error is ValidationError)
///   })
/// ```
///
/// The failure count is 1 after the first failure, 2 after the second, and so on.
public struct RetryStrategy<Failure: Error>: Sendable {
  private let decide: @Sendable (Int, Failure) -> Bool

  /// Creates a strategy from a predicate.
  ///
  /// - Parameter shouldRetry: Whether to retry after `failureCount` failures, the latest with
  ///   `error`.
  public init(_ shouldRetry: @escaping @Sendable (_ failureCount: Int, _ error: Failure) -> Bool) {
    self.decide = shouldRetry
  }

  /// Whether to retry.
  ///
  /// - Parameters:
  ///   - failureCount: The number of failures so far: 1 after the first.
  ///   - error: The latest failure's error.
  /// - Returns: `true` to run the request again.
  public func shouldRetry(failureCount: Int, error: Failure) -> Bool {
    self.decide(failureCount, error)
  }
}

extension RetryStrategy {
  /// Never retries: the request runs once.
  public static var none: Self {
    Self { _, _ in false }
  }

  /// Retries `times` times, so the request runs at most `times + 1` times.
  ///
  /// It retries while the failure count is at most `times`. A negative count is reported as an
  /// issue and treated as 0.
  ///
  /// - Parameter times: The number of retries.
  /// - Returns: The strategy.
  public static func `repeat`(times: Int) -> Self {
    var times = times
    if times < 0 {
      reportWarning(.retryStrategyNegativeTimes(times))
      times = 0
    }
    return Self { [times] failureCount, _ in failureCount <= times }
  }

  /// Retries while a predicate of the failure count and the latest error holds.
  ///
  /// The predicate alone bounds the retries: return `false` at some count to stop.
  ///
  /// - Parameter shouldRetry: Whether to retry after `failureCount` failures, the latest with
  ///   `error`.
  /// - Returns: The strategy.
  public static func custom(
    _ shouldRetry: @escaping @Sendable (_ failureCount: Int, _ error: Failure) -> Bool
  ) -> Self {
    Self(shouldRetry)
  }
}
