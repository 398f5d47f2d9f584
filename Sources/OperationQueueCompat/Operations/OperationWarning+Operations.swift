@_spi(Warnings) public import OperationCore

@_spi(Warnings)
extension OperationWarning {
  /// An operation was added to a ``GroupOperation`` that had started finishing.
  ///
  /// - Parameters:
  ///   - child: The added operation's description.
  ///   - group: The group's description.
  public static func groupOperationChildAddedAfterFinishing(
    _ child: String,
    _ group: String
  ) -> Self {
    Self(
      """
      \(child) was added to \(group) after the group had started finishing, so it does not \
      run. Add children before the last one finishes, from willFinishOperation(_:errors:) for \
      instance.
      """
    )
  }
}
