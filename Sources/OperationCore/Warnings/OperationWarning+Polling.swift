@_spi(Warnings)
extension OperationWarning {
  /// `OperationRequest.repeating(every:maxCount:while:)` was given a largest number of runs
  /// below 1.
  ///
  /// The operation runs once, as with `maxCount: 1`.
  ///
  /// - Parameter maxCount: The number it was given.
  /// - Returns: The warning.
  public static func pollingMaxCountNotPositive(_ maxCount: Int) -> Self {
    Self(
      """
      'repeating(every:maxCount:while:)' was given a maxCount of \(maxCount); the operation \
      runs once instead. Pass a count of at least 1, or nil for no limit.
      """
    )
  }

  /// A `LinuxMemoryPressureSource` was created with a polling interval of zero or less.
  ///
  /// The source polls every 5 seconds instead.
  ///
  /// - Parameter interval: The interval it was given.
  /// - Returns: The warning.
  public static func memoryPressurePollingIntervalNotPositive(_ interval: Duration) -> Self {
    Self(
      """
      A LinuxMemoryPressureSource was created with a non-positive polling interval \
      (\(interval)); it polls every 5 seconds instead.
      """
    )
  }
}
