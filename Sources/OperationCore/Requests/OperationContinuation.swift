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
  private let destination: Destination

  /// Where the yielded results go.
  private enum Destination: Sendable {
    case closure(@Sendable (sending Result<Value, Failure>, OperationContext?) -> Void)
    case receiver(any OperationResultReceiver<Value, Failure>)
  }

  /// Creates a continuation that forwards every yielded result to a closure.
  ///
  /// - Parameter onResult: Receives each result and the context it was yielded with, if any.
  public init(
    onResult: @escaping @Sendable (sending Result<Value, Failure>, OperationContext?) -> Void
  ) {
    self.destination = .closure(onResult)
  }

  /// Creates a continuation that forwards every yielded result to an object.
  ///
  /// A store's run receives its operation's yields itself: that spares each run a closure, and
  /// the thunk that adapts a closure made for concrete types to the continuation's generic ones.
  @usableFromInline
  package init(receiver: any OperationResultReceiver<Value, Failure>) {
    self.destination = .receiver(receiver)
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
    switch self.destination {
    case .closure(let onResult): onResult(result, context)
    case .receiver(let receiver): receiver.receive(result, context: context)
    }
  }
}

/// Receives the results that an operation yields to its ``OperationContinuation``.
@usableFromInline
package protocol OperationResultReceiver<Value, Failure>: AnyObject, Sendable {
  /// The type of the yielded values.
  associatedtype Value
  /// The type of the yielded errors.
  associatedtype Failure: Error

  /// Receives a yielded result and the context it was yielded with, if any.
  func receive(_ result: sending Result<Value, Failure>, context: OperationContext?)
}
