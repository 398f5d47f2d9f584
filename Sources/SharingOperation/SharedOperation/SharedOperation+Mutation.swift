public import OperationCore

// MARK: - Initializers

extension SharedOperation {
  /// Creates a shared mutation.
  ///
  /// A client keeps one store per mutation, and its default store creator never runs a mutation
  /// by itself, so creating the wrapper starts nothing:
  ///
  /// ```swift
  /// @SharedOperation(Post.createMutation) var create
  ///
  /// try await $create.mutate(with: arguments)
  /// ```
  ///
  /// - Parameters:
  ///   - wrappedValue: The value of a new store before its first attempt; ignored when the client
  ///     already has a store for the mutation.
  ///   - mutation: The mutation.
  ///   - client: The client to get the store from; `@Dependency(\.defaultOperationClient)` when
  ///     `nil`.
  ///   - scheduler: Where the store's state changes are applied to the wrapper.
  ///   - placeholder: What the wrapper shows while the store has no result; see
  ///     ``SharedOperationPlaceholder``.
  public init<Mutation: MutationRequest>(
    wrappedValue: Mutation.MutateValue? = nil,
    _ mutation: sending Mutation,
    client: OperationClient? = nil,
    scheduler: some SharedOperationStateScheduler & Sendable = .synchronous,
    placeholder: SharedOperationPlaceholder<State> = .none
  )
  where
    State == MutationState<Mutation.Arguments, Mutation.MutateValue, Mutation.MutateFailure>
  {
    self.init(
      mutation,
      initialState: MutationState(initialValue: wrappedValue),
      client: client,
      scheduler: scheduler,
      placeholder: placeholder
    )
  }

  /// Creates a shared mutation with a default value.
  ///
  /// - Parameters:
  ///   - mutation: The mutation with its default value.
  ///   - client: The client to get the store from; `@Dependency(\.defaultOperationClient)` when
  ///     `nil`.
  ///   - scheduler: Where the store's state changes are applied to the wrapper.
  ///   - placeholder: What the wrapper shows while the store has no result; see
  ///     ``SharedOperationPlaceholder``.
  public init<Mutation: MutationRequest>(
    _ mutation: sending Mutation.Default,
    client: OperationClient? = nil,
    scheduler: some SharedOperationStateScheduler & Sendable = .synchronous,
    placeholder: SharedOperationPlaceholder<State> = .none
  ) where State == DefaultStateOperation<Mutation>.State {
    let initialState = mutation.initialState
    self.init(
      mutation,
      initialState: initialState,
      client: client,
      scheduler: scheduler,
      placeholder: placeholder
    )
  }

  /// Creates an unbacked shared mutation: one with a value but no mutation.
  ///
  /// ```swift
  /// @SharedOperation<Post.CreateMutation.State> var create = nil
  /// ```
  ///
  /// Assign a shared operation created from a mutation to its projected value before mutating;
  /// mutating before that reports an issue and fails with ``UnbackedSharedOperationError``.
  ///
  /// - Parameter wrappedValue: The value.
  public init<Arguments: Sendable, MutateValue: Sendable, MutateFailure: Error>(
    wrappedValue: MutateValue? = nil
  ) where State == MutationState<Arguments, MutateValue, MutateFailure> {
    self.init(initialState: MutationState(initialValue: wrappedValue))
  }
}

// MARK: - Mutating

extension SharedOperation where State: _MutationStateProtocol {
  /// Runs the mutation with a set of arguments and waits for its value.
  ///
  /// - Parameters:
  ///   - arguments: The input of this attempt.
  ///   - context: The context of the attempt; the store's context by default.
  ///   - handler: Receives the events of this attempt only; it does not count as a subscriber.
  /// - Returns: The value of the mutation.
  /// - Throws: The error of the mutation.
  @discardableResult
  public func mutate(
    with arguments: State.Arguments,
    using context: OperationContext? = nil,
    handler: MutationEventHandler<State> = MutationEventHandler()
  ) async throws(State.Failure) -> State.Value {
    try await self.store.mutate(with: arguments, using: context, handler: handler)
  }

  /// Creates an attempt of the mutation without starting it.
  ///
  /// The attempt joins the history and the state starts loading at once; the mutation runs when
  /// the task is first awaited.
  ///
  /// - Parameters:
  ///   - arguments: The input of this attempt.
  ///   - context: The context of the attempt; the store's context by default.
  /// - Returns: The task of the attempt.
  public func mutateTask(
    with arguments: State.Arguments,
    using context: OperationContext? = nil
  ) -> OperationTask<State.Value, State.Failure> {
    self.store.mutateTask(with: arguments, using: context)
  }

  /// Runs the mutation again with the arguments of the latest attempt.
  ///
  /// > Note: Upstream swift-operation traps when there is no attempt to retry. Here the store
  /// > reports the issue and the attempt fails with `MutationArgumentsMissingError` without
  /// > running, when the mutation's failure type can hold that error.
  ///
  /// - Parameters:
  ///   - context: The context of the attempt; the store's context by default.
  ///   - handler: Receives the events of this attempt only; it does not count as a subscriber.
  /// - Returns: The value of the mutation.
  /// - Throws: The error of the mutation, or `MutationArgumentsMissingError`.
  @discardableResult
  public func retryLatest(
    using context: OperationContext? = nil,
    handler: MutationEventHandler<State> = MutationEventHandler()
  ) async throws(State.Failure) -> State.Value {
    try await self.store.retryLatest(using: context, handler: handler)
  }

  /// Creates an attempt with the latest attempt's arguments without starting it; see
  /// ``retryLatest(using:handler:)``.
  ///
  /// - Parameter context: The context of the attempt; the store's context by default.
  /// - Returns: The task of the attempt.
  public func retryLatestTask(
    using context: OperationContext? = nil
  ) -> OperationTask<State.Value, State.Failure> {
    self.store.retryLatestTask(using: context)
  }
}

extension SharedOperation where State: _MutationStateProtocol, State.Arguments == Void {
  /// Runs a mutation that takes no arguments and waits for its value.
  ///
  /// - Parameters:
  ///   - context: The context of the attempt; the store's context by default.
  ///   - handler: Receives the events of this attempt only; it does not count as a subscriber.
  /// - Returns: The value of the mutation.
  /// - Throws: The error of the mutation.
  @discardableResult
  public func mutate(
    using context: OperationContext? = nil,
    handler: MutationEventHandler<State> = MutationEventHandler()
  ) async throws(State.Failure) -> State.Value {
    try await self.mutate(with: (), using: context, handler: handler)
  }

  /// Creates an attempt of a mutation that takes no arguments, without starting it.
  ///
  /// - Parameter context: The context of the attempt; the store's context by default.
  /// - Returns: The task of the attempt.
  public func mutateTask(
    using context: OperationContext? = nil
  ) -> OperationTask<State.Value, State.Failure> {
    self.mutateTask(with: (), using: context)
  }
}
