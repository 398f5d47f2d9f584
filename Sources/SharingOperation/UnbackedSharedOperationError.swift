/// The error of a run of an unbacked ``SharedOperation``: one created without an operation, such
/// as `@SharedOperation<Post.Query.State> var post = nil`, which has nothing to run.
///
/// Unbacked shared operations hold state until you assign a real operation to their projected
/// value. Running one before that (`fetch()`, `run()`, `mutate(with:)`, `load()`, or a run of its
/// ``SharedOperation/store``) reports the mistake as an issue (a test failure under a test
/// runner, a runtime warning otherwise) and fails with this error:
///
/// ```swift
/// @SharedOperation<Post.Query.State> var post = nil
/// do {
///   try await $post.fetch()
/// } catch let error as UnbackedSharedOperationError {
///   print(error)  // An unbacked shared operation was run…
/// }
/// ```
///
/// The failed run records the error in the state like any other failure.
///
/// > Note: Upstream swift-operation stops the program when an unbacked shared operation runs.
/// > Here the run fails with this error instead, when the state's `Failure` can hold it: `any
/// > Error` (the failure type of operations declared `async throws`) or this error itself. A state
/// > with any other typed failure, such as an operation's own error enum or `Never`, has no way to
/// > fail with this error, so its run still stops the program, after the issue is reported.
public struct UnbackedSharedOperationError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The name of the state type of the unbacked shared operation.
  public let stateTypeName: String

  /// Creates the error.
  ///
  /// - Parameter stateTypeName: The name of the state type of the unbacked shared operation.
  public init(stateTypeName: String) {
    self.stateTypeName = stateTypeName
  }

  /// What went wrong and how to avoid it.
  public var description: String {
    """
    An unbacked shared operation was run, but it has no operation to run (state type: \
    \(self.stateTypeName)). Assign a SharedOperation created from an operation to its projected \
    value before running it.
    """
  }
}
