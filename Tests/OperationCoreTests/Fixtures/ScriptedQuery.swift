import OperationCore
import OperationSynchronization

/// A query whose fetches return the results of a script in order, repeating the last one.
struct ScriptedQuery: QueryRequest {
  private final class Script: Sendable {
    private let remaining: Lock<[Result<Int, TestError>]>

    init(_ results: [Result<Int, TestError>]) {
      self.remaining = Lock(results)
    }

    func next() -> Result<Int, TestError> {
      self.remaining.withLock { remaining in
        remaining.count > 1 ? remaining.removeFirst() : remaining[0]
      }
    }
  }

  private let script: Script

  /// Creates a query from a non-empty script.
  init(_ results: [Result<Int, TestError>]) {
    precondition(!results.isEmpty, "A script needs at least one result.")
    self.script = Script(results)
  }

  var path: OperationPath {
    ["scripted-query", ObjectIdentifier(self.script)]
  }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    try self.script.next().get()
  }
}
