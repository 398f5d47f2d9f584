@_spi(Warnings) public import OperationCore

@_spi(Warnings)
extension OperationWarning {
  /// A graph was created with a concurrency limit below 1.
  ///
  /// - Parameter limit: The limit it was given.
  public static func graphConcurrencyLimit(_ limit: Int) -> Self {
    Self(
      """
      A WorkGraph was given a maxConcurrentNodes of \(limit), so it could never run a node; it \
      runs one node at a time instead. Pass a limit of at least 1.
      """
    )
  }
}
