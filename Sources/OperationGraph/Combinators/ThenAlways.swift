import OperationCore

extension OperationRequest {
  /// Runs `next` after this request ends, whether it succeeded or failed; the chain's result is
  /// `next`'s.
  ///
  /// This is PeakOperation's chain, whose later operations run after an earlier one failed:
  /// this request's value and failure are both dropped. Use `then(_:)` to stop at a failure,
  /// or `mapResult(_:)` to look at this request's result.
  ///
  /// ```swift
  /// let cleanUp = UploadPhotos(photos).then(always: DeleteTemporaryFiles())
  /// ```
  ///
  /// The failure types of the two requests need not match: the chain throws `next`'s. Context,
  /// progress, paths and yields work as for `then(_:)`: a failed request completes its share
  /// of the progress, so the chain reaches 1.
  ///
  /// Cancellation: after this request ends, the chain throws `CancellationError` instead of
  /// starting `next` when the task is cancelled and `Next.Failure` can hold it; otherwise `next`
  /// runs and handles the cancelled task itself.
  ///
  /// - Parameter next: The request to run after this one.
  /// - Returns: A request with `next`'s value and failure.
  public func then<Next: OperationRequest>(always next: Next) -> _ThenOperation<Self, Next> {
    _ThenOperation(first: self, second: next, afterFailure: .runSecond)
  }
}
