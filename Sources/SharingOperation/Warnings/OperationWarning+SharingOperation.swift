@_spi(Warnings) public import OperationCore

@_spi(Warnings)
extension OperationWarning {
  /// An unbacked ``SharedOperation``, one created without an operation, was run.
  ///
  /// The run fails with ``UnbackedSharedOperationError`` without doing anything.
  ///
  /// - Parameter stateType: The state type of the shared operation.
  /// - Returns: The warning.
  public static func unbackedSharedOperationRun(stateType: Any.Type) -> Self {
    Self(
      """
      An unbacked shared operation was run. It has no operation, so the run fails with \
      UnbackedSharedOperationError and changes nothing but the state's error.

          State Type: \(typeName(stateType))

      Shared operations created with init(initialState:) or init(wrappedValue:) only hold state. \
      Assign one created from an operation to the projected value ($value = SharedOperation(…)) \
      before running it.
      """
    )
  }
}
