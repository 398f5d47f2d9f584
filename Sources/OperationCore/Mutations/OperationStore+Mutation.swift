// MARK: - Creation

extension OperationStore {
  /// Creates a store for a mutation with a default value, which no client manages.
  ///
  /// - Parameters:
  ///   - mutation: The mutation with its default value.
  ///   - initialContext: The context before the mutation's setup.
  /// - Returns: A new store.
  public static func detached<Mutation: MutationRequest>(
    mutation: sending Mutation.Default,
    initialContext: OperationContext = OperationContext()
  ) -> OperationStore<Mutation.Default.State> where State == DefaultStateOperation<Mutation>.State {
    let initialState = mutation.initialState
    return OperationStore(
      operation: mutation,
      initialState: initialState,
      initialContext: initialContext
    )
  }

  /// Creates a mutation store that no client manages.
  ///
  /// The store does not run the mutation by itself; call
  /// ``mutate(with:using:handler:)`` to run it.
  ///
  /// ```swift
  /// let store = OperationStore.detached(mutation: CreatePost())
  /// let post = try await store.mutate(with: draft)
  /// ```
  ///
  /// - Parameters:
  ///   - mutation: The mutation.
  ///   - initialValue: The value to show before the first attempt.
  ///   - initialContext: The context before the mutation's setup.
  /// - Returns: A new store.
  public static func detached<Mutation: MutationRequest>(
    mutation: sending Mutation,
    initialValue: Mutation.MutateValue? = nil,
    initialContext: OperationContext = OperationContext()
  ) -> OperationStore<Mutation.State>
  where State == MutationState<Mutation.Arguments, Mutation.MutateValue, Mutation.MutateFailure> {
    OperationStore(
      operation: mutation,
      initialState: MutationState(initialValue: initialValue),
      initialContext: initialContext
    )
  }

  /// Creates a mutation store with an initial state, which no client manages.
  ///
  /// - Parameters:
  ///   - mutation: The mutation.
  ///   - initialState: The state to start with.
  ///   - initialContext: The context before the mutation's setup.
  /// - Returns: A new store.
  public static func detached<Mutation: MutationRequest>(
    mutation: sending Mutation,
    initialState: Mutation.State,
    initialContext: OperationContext = OperationContext()
  ) -> OperationStore<Mutation.State>
  where State == MutationState<Mutation.Arguments, Mutation.MutateValue, Mutation.MutateFailure> {
    OperationStore(operation: mutation, initialState: initialState, initialContext: initialContext)
  }
}

extension DefaultStateOperation where Operation: MutationRequest {
  package var initialState: State {
    DefaultOperationState(MutationState(initialValue: nil), defaultValue: self.defaultValue)
  }
}

// MARK: - Mutating

extension OperationStore where State: _MutationStateProtocol {
  /// Runs the mutation with a set of arguments and waits for its value.
  ///
  /// The attempt joins the state's ``MutationState/history`` at once, with `arguments`. Unless
  /// the context names the task, it is named after the store, for example
  /// `OperationStore<MutationState<String, Int, Error>> Mutate Task`.
  ///
  /// ```swift
  /// let post = try await store.mutate(with: CreatePost.Arguments(title: "Hello"))
  /// ```
  ///
  /// - Parameters:
  ///   - arguments: The input of this attempt.
  ///   - context: The context of the attempt; the store's context by default.
  ///   - handler: Receives the events of this attempt only; it does not count as a subscriber.
  /// - Returns: The value of the mutation.
  /// - Throws: The error of the mutation.
  @discardableResult
  @inlinable
  public func mutate(
    with arguments: State.Arguments,
    using context: OperationContext? = nil,
    handler: MutationEventHandler<State> = MutationEventHandler()
  ) async throws(State.Failure) -> State.Value {
    let task = self.runTask(
      using: self.mutationContext(with: arguments, from: context),
      handler: handler.operationEventHandler,
      name: "Mutate Task"
    )
    return try await task.runIfNeeded().returnValue
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
    self.runTask(
      using: self.mutationContext(with: arguments, from: context),
      handler: nil,
      name: "Mutate Task"
    )
    .map { $0.returnValue }
  }

  /// Runs the mutation again with the arguments of the latest attempt in the history.
  ///
  /// The new attempt joins the history like any other. Unless the context names the task, it is
  /// named like `OperationStore<MutationState<String, Int, Error>> Retry Latest Task`. A plain
  /// `run()` on the store retries the latest attempt too.
  ///
  /// > Note: Upstream swift-operation traps when the history is empty. Here the store reports the
  /// > issue and the attempt fails with ``MutationArgumentsMissingError`` without running, when
  /// > the mutation's failure type can hold that error (see there).
  ///
  /// - Parameters:
  ///   - context: The context of the attempt; the store's context by default. Arguments in it are
  ///     ignored.
  ///   - handler: Receives the events of this attempt only; it does not count as a subscriber.
  /// - Returns: The value of the mutation.
  /// - Throws: The error of the mutation, or ``MutationArgumentsMissingError``.
  @discardableResult
  public func retryLatest(
    using context: OperationContext? = nil,
    handler: MutationEventHandler<State> = MutationEventHandler()
  ) async throws(State.Failure) -> State.Value {
    let task = self.runTask(
      using: self.retryLatestContext(from: context),
      handler: handler.operationEventHandler,
      name: "Retry Latest Task"
    )
    return try await task.runIfNeeded().returnValue
  }

  /// Creates an attempt with the latest attempt's arguments without starting it; see
  /// ``retryLatest(using:handler:)``.
  ///
  /// - Parameter context: The context of the attempt; the store's context by default. Arguments
  ///   in it are ignored.
  /// - Returns: The task of the attempt.
  public func retryLatestTask(
    using context: OperationContext? = nil
  ) -> OperationTask<State.Value, State.Failure> {
    self.runTask(
      using: self.retryLatestContext(from: context),
      handler: nil,
      name: "Retry Latest Task"
    )
    .map { $0.returnValue }
  }

  /// Subscribes to the store's events with mutation callbacks; see
  /// ``subscribe(with:)-(OperationEventHandler<State>)``.
  ///
  /// Mutation stores do not run by themselves unless a modifier enables automatic running, so
  /// subscribing does not start an attempt.
  ///
  /// - Parameter handler: The callbacks.
  /// - Returns: A subscription that ends when cancelled or released.
  public func subscribe(with handler: MutationEventHandler<State>) -> OperationSubscription {
    self.subscribe(with: handler.operationEventHandler)
  }

  @usableFromInline
  func mutationContext(
    with arguments: State.Arguments,
    from context: OperationContext?
  ) -> OperationContext {
    var context = context ?? self.context
    context.setMutationArguments(arguments)
    return context
  }

  private func retryLatestContext(from context: OperationContext?) -> OperationContext {
    var context = context ?? self.context
    context.removeMutationArguments()
    return context
  }
}

extension OperationStore where State: _MutationStateProtocol, State.Arguments == Void {
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
