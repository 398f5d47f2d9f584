import OperationCore
import OperationSynchronization

/// A query that throws ``TestError`` while ``fails`` is on, and returns `1` otherwise.
struct FailingQuery: QueryRequest {
  let fails = Lock(true)
  let fetches = CallCounter()

  var path: OperationPath {
    ["failing-query", ObjectIdentifier(self.fetches)]
  }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.fetches.increment()
    if self.fails.withLock({ $0 }) {
      throw TestError()
    }
    return 1
  }
}
