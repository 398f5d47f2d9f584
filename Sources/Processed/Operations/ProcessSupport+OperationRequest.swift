public import OperationCore

extension ProcessSupport {
  /// Runs a process in a new task by running a request, so that its modifiers (retry, timeout,
  /// delayer…) apply; the request's value is dropped.
  ///
  /// ```swift
  /// run(\.action, as: .save, operation: SaveDocument(document).retry(limit: 2))
  /// ```
  ///
  /// - Parameters:
  ///   - state: The key path of the state.
  ///   - process: The process that runs.
  ///   - runSilently: Whether to skip the ``ProcessState/running(_:)`` state.
  ///   - operation: The request to run.
  ///   - context: The context the runner starts from.
  ///   - priority: The priority of the task.
  /// - Returns: The task of the run; there is no need to keep it.
  @MainActor
  @discardableResult
  public func run<ProcessKind: Equatable, Operation: OperationRequest & Sendable>(
    _ state: ReferenceWritableKeyPath<Self, ProcessState<ProcessKind>>,
    as process: ProcessKind,
    silently runSilently: Bool = false,
    operation: Operation,
    context: OperationContext = OperationContext(),
    priority: TaskPriority? = nil
  ) -> Task<Void, Never> where Operation.Value: Sendable {
    self.processBinding(state).run(
      process,
      silently: runSilently,
      operation: operation,
      context: context,
      priority: priority
    )
  }

  /// Runs a process in the calling task by running a request, so that its modifiers apply; the
  /// request's value is dropped.
  ///
  /// - Parameters:
  ///   - state: The key path of the state.
  ///   - process: The process that runs.
  ///   - runSilently: Whether to skip the ``ProcessState/running(_:)`` state.
  ///   - operation: The request to run.
  ///   - context: The context the runner starts from.
  @MainActor
  public func run<ProcessKind: Equatable, Operation: OperationRequest & Sendable>(
    _ state: ReferenceWritableKeyPath<Self, ProcessState<ProcessKind>>,
    as process: ProcessKind,
    silently runSilently: Bool = false,
    operation: Operation,
    context: OperationContext = OperationContext()
  ) async where Operation.Value: Sendable {
    await self.processBinding(state).run(
      process,
      silently: runSilently,
      operation: operation,
      context: context
    )
  }
}
