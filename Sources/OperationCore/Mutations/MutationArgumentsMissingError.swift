/// The error of a mutation run that has no arguments: it was started without any, and the
/// mutation's store has no history to take the latest arguments from.
///
/// ``OperationStore/mutate(with:using:handler:)`` always passes arguments. The runs that take
/// them from the store's ``MutationState/history`` instead, ``OperationStore/retryLatest(using:handler:)``
/// and a plain `run()`, have none to take before the first mutation, and end with this error:
///
/// ```swift
/// let store = OperationStore.detached(mutation: CreatePost())
/// do {
///   try await store.retryLatest()
/// } catch let error as MutationArgumentsMissingError {
///   print(error)  // The mutation has no arguments to run with…
/// }
/// ```
///
/// The store also reports the misuse as an issue (a test failure under a test runner, a runtime
/// warning otherwise). The run never calls the mutation and adds nothing to the history.
///
/// > Note: Upstream swift-operation traps in this situation. Here the run fails with this error
/// > instead, when the mutation's `MutateFailure` can hold it: `any Error` (the failure type of
/// > a mutation declared `async throws`) or `MutationArgumentsMissingError` itself. A mutation
/// > with any other typed failure, such as its own error enum or `Never`, has no way to fail with
/// > this error, so its run still stops the program after the issue is reported.
public struct MutationArgumentsMissingError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Creates the error.
  public init() {}

  /// What went wrong and how to avoid it.
  public var description: String {
    """
    The mutation has no arguments to run with: the run was not given any, and the store has no \
    history to retry. Call mutate(with:) before retryLatest() or run().
    """
  }
}
