/// An operation that fetches a whole value, such as a post by its id.
///
/// ```swift
/// struct PostQuery: QueryRequest, Hashable {
///   let id: Int
///
///   func fetch(
///     isolation: isolated (any Actor)?,
///     in context: OperationContext,
///     with continuation: OperationContinuation<Post?, any Error>
///   ) async throws -> Post? {
///     try await api.post(id: self.id)
///   }
/// }
///
/// let store = client.store(for: PostQuery(id: 1))
/// let post = try await store.fetch()
/// ```
///
/// A store keeps a ``QueryState`` for the query: each yielded or returned value replaces the
/// current value.
public protocol QueryRequest<FetchValue, FetchFailure>: StatefulOperationRequest
where
  FetchValue == Value,
  FetchFailure == Failure,
  State == QueryState<FetchValue, FetchFailure>
{
  /// The type of value the query fetches.
  associatedtype FetchValue: Sendable

  /// The type of error the query throws.
  associatedtype FetchFailure: Error

  /// Fetches the value.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of this fetch.
  ///   - continuation: Receives intermediate values, such as cached data.
  /// - Returns: The fetched value.
  /// - Throws: The error of the fetch.
  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<FetchValue, FetchFailure>
  ) async throws(FetchFailure) -> FetchValue
}

extension QueryRequest {
  /// Runs the query by calling its `fetch(isolation:in:with:)`.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of this fetch.
  ///   - continuation: Receives intermediate values.
  /// - Returns: The fetched value.
  /// - Throws: The error of the fetch.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<FetchValue, FetchFailure>
  ) async throws(FetchFailure) -> FetchValue {
    try await self.fetch(isolation: isolation, in: context, with: continuation)
  }
}

extension ModifiedOperation: QueryRequest
where
  Operation: QueryRequest,
  Operation.Value == Modifier.Value,
  Operation.Failure == Modifier.Failure
{
  /// Fetches with the wrapped query directly, without the modifier.
  ///
  /// Stores call `run(isolation:in:with:)`, which goes through the modifier.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of this fetch.
  ///   - continuation: Receives intermediate values.
  /// - Returns: The fetched value.
  /// - Throws: The error of the fetch.
  public func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Operation.FetchValue, Operation.FetchFailure>
  ) async throws(Operation.FetchFailure) -> Operation.FetchValue {
    try await self.operation.fetch(isolation: isolation, in: context, with: continuation)
  }
}
