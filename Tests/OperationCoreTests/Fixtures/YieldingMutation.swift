import OperationCore

/// A mutation that yields each of ``yields`` through its continuation, then returns its arguments
/// with "!" appended, or throws ``finalError`` when it is set.
///
/// With ``yieldsWithFreshContext`` the yields pass a new, empty context.
struct YieldingMutation: MutationRequest {
  let yields: [Result<String, TestError>]
  var finalError: TestError?
  var yieldsWithFreshContext = false

  var path: OperationPath {
    [
      "yielding-mutation", self.yields.map(String.init(describing:)),
      String(describing: self.finalError), self.yieldsWithFreshContext,
    ]
  }

  func mutate(
    isolation: isolated (any Actor)?,
    with arguments: String,
    in context: OperationContext,
    with continuation: OperationContinuation<String, any Error>
  ) async throws -> String {
    for result in self.yields {
      continuation.yield(
        with: result.mapError { $0 },
        using: self.yieldsWithFreshContext ? OperationContext() : nil
      )
    }
    if let finalError {
      throw finalError
    }
    return arguments + "!"
  }
}
