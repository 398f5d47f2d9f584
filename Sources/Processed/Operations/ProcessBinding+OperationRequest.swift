public import OperationCore

extension ProcessBinding where ProcessKind: Equatable {
  /// Runs a process in a new task by running a request, so that its modifiers (retry, timeout,
  /// delayer…) apply; the request's value is dropped.
  ///
  /// ```swift
  /// $action.run(.save, operation: SaveDocument(document).retry(limit: 2))
  /// ```
  ///
  /// - Parameters:
  ///   - process: The process that runs.
  ///   - runSilently: Whether to skip the ``ProcessState/running(_:)`` state.
  ///   - operation: The request to run.
  ///   - context: The context the runner starts from.
  ///   - priority: The priority of the task.
  /// - Returns: The task of the run; there is no need to keep it.
  @discardableResult
  public func run<Operation: OperationRequest & Sendable>(
    _ process: ProcessKind,
    silently runSilently: Bool = false,
    operation: Operation,
    context: OperationContext = OperationContext(),
    priority: TaskPriority? = nil
  ) -> Task<Void, Never> where Operation.Value: Sendable {
    self.controller.start(
      RunPlan(ProcessRun(process), silently: runSilently, operation: operation, context: context),
      priority: priority
    )
  }

  /// Runs a process in the calling task by running a request, so that its modifiers apply; the
  /// request's value is dropped.
  ///
  /// - Parameters:
  ///   - process: The process that runs.
  ///   - runSilently: Whether to skip the ``ProcessState/running(_:)`` state.
  ///   - operation: The request to run.
  ///   - context: The context the runner starts from.
  public func run<Operation: OperationRequest & Sendable>(
    _ process: ProcessKind,
    silently runSilently: Bool = false,
    operation: Operation,
    context: OperationContext = OperationContext()
  ) async where Operation.Value: Sendable {
    await self.controller.run(
      RunPlan(ProcessRun(process), silently: runSilently, operation: operation, context: context)
    )
  }
}
