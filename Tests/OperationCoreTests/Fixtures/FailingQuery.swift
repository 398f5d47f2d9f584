import OperationCore

/// A query that always throws a ``TestError``.
struct FailingQuery: QueryRequest, Hashable {
  var error = TestError()

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    throw self.error
  }
}
