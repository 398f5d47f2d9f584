public import OperationCore

extension LoadableSupport {
  /// Loads a state in a new task by running a request, so that its modifiers (retry, timeout,
  /// delayer…) apply.
  ///
  /// ```swift
  /// load(\.post, operation: Post.query(for: 1).retry(limit: 3).timeout(after: .seconds(10)))
  /// ```
  ///
  /// The request runs with a fresh `OperationRunner` built on `context`. Each value it yields
  /// sets ``LoadableState/loaded(_:)`` and each error it yields sets ``LoadableState/error(_:)``;
  /// its final value or error then goes through the usual rules of ``LoadableSupport``.
  ///
  /// - Parameters:
  ///   - state: The key path of the state.
  ///   - runSilently: Whether to skip the ``LoadableState/loading`` state.
  ///   - operation: The request to run.
  ///   - context: The context the runner starts from.
  ///   - priority: The priority of the task.
  /// - Returns: The task of the load; there is no need to keep it.
  @MainActor
  @discardableResult
  public func load<Operation: OperationRequest & Sendable>(
    _ state: ReferenceWritableKeyPath<Self, LoadableState<Operation.Value>>,
    silently runSilently: Bool = false,
    operation: Operation,
    context: OperationContext = OperationContext(),
    priority: TaskPriority? = nil
  ) -> Task<Void, Never> where Operation.Value: Sendable {
    self.loadableBinding(state).load(
      silently: runSilently,
      operation: operation,
      context: context,
      priority: priority
    )
  }

  /// Loads a state in the calling task by running a request, so that its modifiers apply.
  ///
  /// - Parameters:
  ///   - state: The key path of the state.
  ///   - runSilently: Whether to skip the ``LoadableState/loading`` state.
  ///   - operation: The request to run.
  ///   - context: The context the runner starts from.
  @MainActor
  public func load<Operation: OperationRequest & Sendable>(
    _ state: ReferenceWritableKeyPath<Self, LoadableState<Operation.Value>>,
    silently runSilently: Bool = false,
    operation: Operation,
    context: OperationContext = OperationContext()
  ) async where Operation.Value: Sendable {
    await self.loadableBinding(state).load(
      silently: runSilently,
      operation: operation,
      context: context
    )
  }
}
