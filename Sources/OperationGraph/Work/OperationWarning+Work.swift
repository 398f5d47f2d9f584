@_spi(Warnings) public import OperationCore

@_spi(Warnings)
extension OperationWarning {
  /// ``RetryStrategy/repeat(times:)`` was given a negative number of retries.
  ///
  /// The strategy never retries, as with `.repeat(times: 0)`.
  ///
  /// - Parameter times: The number it was given.
  /// - Returns: The warning.
  public static func retryStrategyNegativeTimes(_ times: Int) -> Self {
    Self(
      """
      RetryStrategy.repeat(times:) was given a negative number of retries (got: \(times)).

      The strategy never retries, as with .repeat(times: 0). Pass the number of retries you want, \
      0 or more; the request then runs at most that many times plus one.
      """
    )
  }

  /// `OperationRequest.repeating(maxCount:waiting:while:)` was given a largest number of runs
  /// below 1.
  ///
  /// The request runs once, as with `maxCount: 1`.
  ///
  /// - Parameter maxCount: The number it was given.
  /// - Returns: The warning.
  public static func repeatingMaxCountNotPositive(_ maxCount: Int) -> Self {
    Self(
      """
      repeating(maxCount:waiting:while:) was given a maxCount of \(maxCount); the request runs \
      once instead.

      maxCount is the largest number of runs, counting the first. Pass 1 or more, or nil for no \
      limit other than the predicate.
      """
    )
  }
}
