import OperationCore
import OperationTestSupport

/// A query that yields each of ``yields``, then waits for ``gate`` before returning ``value``.
///
/// Every fetch opens ``started`` after its yields, so a test can wait until the query is in flight
/// with its yields applied. After the gate opens the query checks for cancellation, so a cancelled
/// fetch throws `CancellationError`.
struct GatedQuery: QueryRequest {
  let gate = Gate()
  let started = Gate()
  var yields = [Int]()
  var value = 1

  var path: OperationPath {
    ["gated-query", ObjectIdentifier(self.gate)]
  }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    for value in self.yields {
      continuation.yield(value)
    }
    self.started.open()
    await self.gate.wait()
    try Task.checkCancellation()
    return self.value
  }
}
