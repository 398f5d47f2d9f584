import OperationCore

/// A combined request that is a `QueryRequest` because its parts are stateful: its `fetch` runs
/// it.
///
/// The combinators of this module conform to it when their parts are
/// `StatefulOperationRequest`s, so that `client.store(for: a.then(b))` works. Stores call
/// `run(isolation:in:with:)`, which each combinator implements; `fetch` is the same run.
public protocol _CombinedQueryRequest: QueryRequest {}

extension _CombinedQueryRequest {
  /// Runs the combined request.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of this fetch.
  ///   - continuation: Receives intermediate values.
  /// - Returns: The combined value.
  /// - Throws: The combined failure.
  public func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, Failure>
  ) async throws(Failure) -> Value {
    try await self.run(isolation: isolation, in: context, with: continuation)
  }
}
