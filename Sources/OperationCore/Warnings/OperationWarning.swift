/// A description of misuse that the library reports as an issue instead of trapping.
///
/// Warnings go through IssueReporting: under a test runner they fail the test (match them with
/// `withKnownIssue`), otherwise they print a runtime warning. Each situation has one factory, so
/// tests compare against values instead of copied strings:
///
/// ```swift
/// withKnownIssue {
///   _ = client.store(for: OtherQuery())
/// } matching: { issue in
///   issue.comments.contains(Comment(rawValue: OperationWarning.duplicatePath(
///     expectedType: A.self, foundType: B.self
///   ).message))
/// }
/// ```
@_spi(Warnings)
public struct OperationWarning: Hashable, Sendable {
  /// What happened and what to do about it.
  public let message: String

  /// Creates a warning with a message.
  ///
  /// - Parameter message: What happened and what to do about it.
  public init(_ message: String) {
    self.message = message
  }
}

@_spi(Warnings)
extension OperationWarning: ExpressibleByStringLiteral {
  /// Creates a warning from a string literal.
  ///
  /// - Parameter value: The message.
  public init(stringLiteral value: String) {
    self.init(value)
  }
}

/// Lets a warning be written as an interpolated string literal, such as `"Got \(value)."`.
@_spi(Warnings)
extension OperationWarning: ExpressibleByStringInterpolation {}

@_spi(Warnings)
extension OperationWarning: CustomStringConvertible {
  /// The warning's message.
  public var description: String {
    self.message
  }
}

@_spi(Warnings)
extension OperationWarning {
  /// An operation yielded a result after it had returned, so the result was ignored.
  ///
  /// - Parameter result: The ignored result.
  public static func queryYieldedAfterReturning<Value, Failure: Error>(
    _ result: Result<Value, Failure>
  ) -> Self {
    Self(
      """
      An operation yielded a result after it returned, so the result was ignored.

        Result: \(result)

      A continuation only delivers results while its operation runs. To push values into a store \
      from outside a run, use an OperationController, or set the store's currentValue.
      """
    )
  }

  /// Two different operation types asked an ``OperationClient`` for a store at the same path.
  ///
  /// - Parameters:
  ///   - expectedType: The type that created the cached store.
  ///   - foundType: The type that asked for the path afterwards.
  public static func duplicatePath(expectedType: any Any.Type, foundType: any Any.Type) -> Self {
    Self(
      """
      Two different operation types use the same OperationPath.

        Cached store's operation type: \(typeName(expectedType))
        Requesting operation type: \(typeName(foundType))

      The client returned a new store that it does not cache, so the two do not share state. Give \
      each operation type its own path, for example by starting it with a string that names the \
      type.
      """
    )
  }

  /// An ``OperationController`` used its ``OperationControls`` after their store was deallocated.
  ///
  /// - Parameter stateType: The state type of the store.
  public static func controllerDeallocatedStoreAccess(stateType: any Any.Type) -> Self {
    Self(
      """
      An OperationController used the controls of an OperationStore<\(typeName(stateType))> \
      that has been deallocated; the access did nothing.

      A store owns the controls it hands to its controllers. Release the controls (and stop the \
      work that uses them) in the OperationSubscription that control(with:) returns: the store \
      cancels it when it is deallocated.
      """
    )
  }

  /// Scheduling an ``OperationTask`` after another would have made a cycle, so it was ignored.
  ///
  /// - Parameter info: The tasks along the cycle, starting and ending with the same task.
  public static func operationTaskCircularScheduling(info: [OperationTaskInfo]) -> Self {
    Self(
      """
      Scheduling these operation tasks would make a cycle, so the last dependency was not added:

        \(info.map(\.description).joined(separator: " -> "))

      A task waits for the tasks it is scheduled after; a cycle would make them wait forever.
      """
    )
  }
}
