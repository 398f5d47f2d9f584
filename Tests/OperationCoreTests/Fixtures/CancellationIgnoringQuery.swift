import OperationCore
import OperationTestSupport

/// A query that waits for ``gate`` and then returns ``value`` even when it was cancelled.
///
/// Every fetch opens ``started`` when it reaches the gate.
struct CancellationIgnoringQuery: QueryRequest {
  let gate = Gate()
  let started = Gate()
  var value = 1

  var path: OperationPath {
    ["cancellation-ignoring-query", ObjectIdentifier(self.gate)]
  }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.started.open()
    await self.gate.wait()
    return self.value
  }
}
