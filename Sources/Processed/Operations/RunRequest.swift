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
  /// A load that runs a request.
  static func loading<Operation: OperationRequest & Sendable>(
    silently: Bool,
    operation: Operation,
    context: OperationContext
  ) -> Self where State == LoadableState<Operation.Value>, Operation.Value: Sendable {
    Self(
      silently: silently,
      starting: { $0.isLoading ? nil : .loading },
      failed: { .error($0) },
      body: { yield in
        let value = try await runRequest(operation, context: context) { result in
          switch result {
          case .success(let value): yield(.loaded(value))
          case .failure(let error): yield(.error(error))
          }
        }
        return .loaded(value)
      }
    )
  }

  /// A process run that runs a request and drops its value.
  static func running<ProcessKind: Equatable, Operation: OperationRequest & Sendable>(
    _ process: ProcessKind,
    silently: Bool,
    operation: Operation,
    context: OperationContext
  ) -> Self where State == ProcessState<ProcessKind>, Operation.Value: Sendable {
    Self(
      silently: silently,
      starting: { $0.isRunning(process) ? nil : .running(process) },
      failed: { .failed(process: process, error: $0) },
      body: { _ in
        _ = try await runRequest(operation, context: context) { _ in }
        return .finished(process)
      }
    )
  }
}
