public import OperationCore

extension LoadableBinding where Value: Sendable {
  /// Loads the state in a new task by running a request, so that its modifiers (retry, timeout,
  /// delayer…) apply.
  ///
  /// ```swift
  /// $post.load(operation: Post.query(for: 1).retry(limit: 3))
  /// ```
  ///
  /// The request runs with a fresh `OperationRunner` built on `context`. Each value it yields
  /// sets ``LoadableState/loaded(_:)`` and each error it yields sets ``LoadableState/error(_:)``;
  /// its final value or error then goes through the usual rules of the binding.
  ///
  /// - Parameters:
  ///   - runSilently: Whether to skip the ``LoadableState/loading`` state.
  ///   - operation: The request to run.
  ///   - context: The context the runner starts from.
  ///   - priority: The priority of the task.
  /// - Returns: The task of the load; there is no need to keep it.
  @discardableResult
  public func load<Operation: OperationRequest<Value, Operation.Failure> & Sendable>(
    silently runSilently: Bool = false,
    operation: Operation,
    context: OperationContext = OperationContext(),
    priority: TaskPriority? = nil
  ) -> Task<Void, Never> {
    self.controller.start(
      RunPlan(LoadRun(), silently: runSilently, operation: operation, context: context),
      priority: priority
    )
  }

  /// Loads the state in the calling task by running a request, so that its modifiers apply.
  ///
  /// - Parameters:
  ///   - runSilently: Whether to skip the ``LoadableState/loading`` state.
  ///   - operation: The request to run.
  ///   - context: The context the runner starts from.
  public func load<Operation: OperationRequest<Value, Operation.Failure> & Sendable>(
    silently runSilently: Bool = false,
    operation: Operation,
    context: OperationContext = OperationContext()
  ) async {
    await self.controller.run(
      RunPlan(LoadRun(), silently: runSilently, operation: operation, context: context)
    )
  }
}
