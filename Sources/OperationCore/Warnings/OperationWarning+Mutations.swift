@_spi(Warnings)
extension OperationWarning {
  /// A mutation run had no arguments: it was not given any, and its store had no history to take
  /// the latest arguments from.
  ///
  /// The run fails with ``MutationArgumentsMissingError`` without calling the mutation.
  public static var mutationWithNoArgumentsOrHistory: Self {
    Self(
      """
      A mutation ran without arguments, and its store has no history to take the latest \
      arguments from.

      retryLatest() and run() on a mutation's store repeat the latest attempt in its history, \
      with the same arguments; before the first mutate(with:) there is none. The attempt fails with \
      MutationArgumentsMissingError without calling the mutation.

      Call mutate(with:) first, or check that the store's history is not empty.
      """
    )
  }

  /// ``MutationRequest/maxHistory(length:)`` was given a length of 0 or less.
  ///
  /// - Parameter length: The length it was given.
  public static func mutationMaxHistoryLengthNotPositive(_ length: Int) -> Self {
    Self(
      """
      A mutation's history length must be greater than zero (got: \(length)).

      The history keeps the latest attempt, as with maxHistory(length: 1).
      """
    )
  }
}
