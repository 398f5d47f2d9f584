import OperationCore
import OperationTestSupport

/// A query that waits for ``gate`` before returning ``value``, and counts its fetches.
///
/// Every fetch opens ``started`` when it reaches the gate, so a test can wait until the query is
/// in flight. After the gate opens the query checks for cancellation, so a cancelled fetch
/// throws `CancellationError`.
struct GatedQuery: QueryRequest {
  let gate = Gate()
  let started = Gate()
  let fetchCount = CallCounter()
  var value = 1

  var path: OperationPath {
    ["gated-query", ObjectIdentifier(self.gate)]
  }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.fetchCount.increment()
    self.started.open()
    await self.gate.wait()
    try Task.checkCancellation()
    return self.value
  }
}
