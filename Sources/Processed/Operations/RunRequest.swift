import OperationCore

/// Runs a request with a runner, handing each state it yields to `onYield` on the main actor.
///
/// The request runs in a child task, so that results it yields from any executor reach the
/// main actor in order, through a stream, before its final value. Cancelling the calling task
/// cancels the request.
@MainActor
func runRequest<Operation: OperationRequest & Sendable>(
  _ operation: Operation,
  context: OperationContext,
  onYield: @MainActor (Result<Operation.Value, Operation.Failure>) -> Void
) async throws -> Operation.Value where Operation.Value: Sendable {
  let runner = OperationRunner(operation: operation, initialContext: context)
  let (results, continuation) = AsyncStream.makeStream(
    of: Result<Operation.Value, Operation.Failure>.self
  )
  return try await withThrowingTaskGroup(of: Operation.Value.self) { group in
    group.addTask {
      defer { continuation.finish() }
      return try await runner.run(
        with: OperationContinuation { result, _ in continuation.yield(result) }
      )
    }
    for await result in results {
      onYield(result)
    }
    guard let value = try await group.next() else { throw CancellationError() }
    return value
  }
}

@MainActor
extension RunPlan {
  /// A run of `kind` that runs a request: each result the request yields goes through
  /// ``RunKind/yielded(_:)``, and its value through ``RunKind/finished(with:)``.
  init<Kind: RunKind<State>, Operation: OperationRequest & Sendable>(
    _ kind: Kind,
    silently: Bool,
    operation: Operation,
    context: OperationContext
  ) where Kind.Output == Operation.Value, Operation.Value: Sendable {
    self.init(kind, silently: silently) { yield in
      let value = try await runRequest(operation, context: context) { result in
        if let state = kind.yielded(result.mapError { $0 }) {
          yield(state)
        }
      }
      return kind.finished(with: value)
    }
  }
}
