import OperationCore

/// A query that returns what ``read`` finds in the context of its fetch.
struct ContextReadingQuery<Value: Sendable>: QueryRequest {
  var path: OperationPath = ["context-reading-query"]
  let read: @Sendable (OperationContext) -> Value

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, any Error>
  ) async throws -> Value {
    self.read(context)
  }
}
