import OperationCore

/// A query that yields each of ``yields`` through its continuation, then returns ``finalValue``.
struct YieldingQuery: QueryRequest {
  let yields: [Result<Int, TestError>]
  var finalValue = 100

  var path: OperationPath {
    ["yielding-query", self.yields.map(String.init(describing:)), self.finalValue]
  }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    for result in self.yields {
      continuation.yield(with: result.mapError { $0 })
    }
    return self.finalValue
  }
}
