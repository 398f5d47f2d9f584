/// Delivers intermediate results of an operation while it runs.
///
/// Every operation receives a continuation. Yield to it to publish a value (or an error) before
/// the operation returns, for example cached data while the live data loads:
///
/// ```swift
/// func fetch(
///   isolation: isolated (any Actor)?,
///   in context: OperationContext,
///   with continuation: OperationContinuation<Post?, any Error>
/// ) async throws -> Post? {
///   if let cached = try PostCache.shared.post(for: self.id) {
///     continuation.yield(cached)
///   }
///   return try await self.fetchPost()
/// }
/// ```
///
/// In a store, each yield updates the state at once while `isLoading` stays `true` until the
/// operation returns. A yield after the operation returned is ignored and reported as an issue;
/// to change a store's value outside a run, set its ``OperationStore/currentValue`` instead.
public struct OperationContinuation<Value, Failure: Error>: Sendable {
  private let onResult: @Sendable (sending Result<Value, Failure>, OperationContext?) -> Void

  /// Creates a continuation that forwards every yielded result to a closure.
  ///
  /// - Parameter onResult: Receives each result and the context it was yielded with, if any.
  public init(
    onResult: @escaping @Sendable (sending Result<Value, Failure>, OperationContext?) -> Void
  ) {
    self.onResult = onResult
  }

  /// Yields a value.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - context: A context that replaces the running task's context for this update only.
  public func yield(_ value: sending Value, using context: OperationContext? = nil) {
    self.yield(with: .success(value), using: context)
  }

  /// Yields an error; the operation goes on running.
  ///
  /// - Parameters:
  ///   - error: The error.
  ///   - context: A context that replaces the running task's context for this update only.
  public func yield(error: Failure, using context: OperationContext? = nil) {
    self.yield(with: .failure(error), using: context)
  }

  /// Yields a result.
  ///
  /// - Parameters:
  ///   - result: The result.
  ///   - context: A context that replaces the running task's context for this update only.
  public func yield(
    with result: sending Result<Value, Failure>,
    using context: OperationContext? = nil
  ) {
    self.onResult(result, context)
  }
}
