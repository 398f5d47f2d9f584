import OperationCore

/// A query that returns `1` at once.
struct TestQuery: QueryRequest, Hashable {
  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    1
  }
}
