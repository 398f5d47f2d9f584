import OperationCore
import OperationSynchronization

/// A query that keeps its continuation after returning `1`, so a test can yield too late.
struct ContinuationKeepingQuery: QueryRequest {
  final class Box: Sendable {
    private let stored = Lock<OperationContinuation<Int, any Error>?>(nil)

    var continuation: OperationContinuation<Int, any Error>? {
      get { self.stored.withLock { $0 } }
      set { self.stored.withLock { $0 = newValue } }
    }
  }

  let box = Box()

  var path: OperationPath {
    ["continuation-keeping-query", ObjectIdentifier(self.box)]
  }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.box.continuation = continuation
    return 1
  }
}
