@_spi(Warnings) public import OperationCore

@_spi(Warnings)
extension OperationWarning {
  /// A ``ConcurrentOperation`` subclass did not override `execute()`.
  ///
  /// - Parameter typeName: The subclass.
  public static func concurrentOperationExecuteNotOverridden(_ typeName: String) -> Self {
    Self(
      """
      \(typeName) does not override execute(), so it does nothing and finishes. Override \
      execute() to do the operation's work, and call finish() when it is done.
      """
    )
  }

  /// A ``ConcurrentOperation`` was started a second time.
  ///
  /// - Parameter operation: The operation's description.
  public static func concurrentOperationStartedTwice(_ operation: String) -> Self {
    Self(
      """
      \(operation) was started after it had already started; the second start is ignored. An \
      operation runs once: add it to one queue, or call start() once.
      """
    )
  }

  /// A condition was added to a ``ConcurrentOperation`` that had already started.
  ///
  /// - Parameters:
  ///   - condition: The condition's name.
  ///   - operation: The operation's description.
  public static func concurrentOperationConditionAfterStart(
    _ condition: String,
    _ operation: String
  ) -> Self {
    Self(
      """
      The condition '\(condition)' was added to \(operation) after it had started, so it is \
      ignored. Add conditions before the operation is added to a queue.
      """
    )
  }
}
