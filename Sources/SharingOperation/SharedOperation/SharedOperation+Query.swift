public import OperationCore

// MARK: - Initializers

extension SharedOperation {
  /// Creates a shared query.
  ///
  /// ```swift
  /// @SharedOperation(Post.query(for: 1)) var post
  /// ```
  ///
  /// - Parameters:
  ///   - wrappedValue: The value of a new store; ignored when the client already has a store for
  ///     the query.
  ///   - query: The query.
  ///   - client: The client to get the store from; `@Dependency(\.defaultOperationClient)` when
  ///     `nil`.
  ///   - scheduler: Where the store's state changes are applied to the wrapper.
  ///   - placeholder: What the wrapper shows while the store has no result; see
  ///     ``SharedOperationPlaceholder``.
  public init<Query: QueryRequest>(
    wrappedValue: Query.Value? = nil,
    _ query: sending Query,
    client: OperationClient? = nil,
    scheduler: some SharedOperationStateScheduler & Sendable = .synchronous,
    placeholder: SharedOperationPlaceholder<State> = .none
  ) where State == QueryState<Query.Value, Query.Failure> {
    self.init(
      query,
      initialState: QueryState(initialValue: wrappedValue),
      client: client,
      scheduler: scheduler,
      placeholder: placeholder
    )
  }

  /// Creates a shared query with a default value.
  ///
  /// ```swift
  /// @SharedOperation(Post.listQuery.defaultValue([])) var posts
  /// ```
  ///
  /// - Parameters:
  ///   - query: The query with its default value.
  ///   - client: The client to get the store from; `@Dependency(\.defaultOperationClient)` when
  ///     `nil`.
  ///   - scheduler: Where the store's state changes are applied to the wrapper.
  ///   - placeholder: What the wrapper shows while the store has no result; see
  ///     ``SharedOperationPlaceholder``.
  public init<Query: QueryRequest>(
    _ query: sending Query.Default,
    client: OperationClient? = nil,
    scheduler: some SharedOperationStateScheduler & Sendable = .synchronous,
    placeholder: SharedOperationPlaceholder<State> = .none
  ) where State == DefaultStateOperation<Query>.State {
    let initialState = query.initialState
    self.init(
      query,
      initialState: initialState,
      client: client,
      scheduler: scheduler,
      placeholder: placeholder
    )
  }

  /// Creates an unbacked shared query: one with a value but no query.
  ///
  /// ```swift
  /// @SharedOperation<Post.Query.State> var post = nil
  /// ```
  ///
  /// Assign a shared operation created from a query to its projected value before fetching;
  /// fetching before that reports an issue and fails with ``UnbackedSharedOperationError``.
  ///
  /// - Parameter wrappedValue: The value.
  public init<Value: Sendable, Failure: Error>(
    wrappedValue: Value? = nil
  ) where State == QueryState<Value, Failure> {
    self.init(initialState: QueryState(initialValue: wrappedValue))
  }
}

// MARK: - Fetching

extension SharedOperation where State: _QueryStateProtocol {
  /// Fetches the query's value.
  ///
  /// - Parameters:
  ///   - context: The context of the fetch; the store's context by default.
  ///   - handler: Receives the events of this fetch only; it does not count as a subscriber.
  /// - Returns: The fetched value.
  /// - Throws: The error of the fetch.
  @discardableResult
  public func fetch(
    using context: OperationContext? = nil,
    handler: QueryEventHandler<State> = QueryEventHandler()
  ) async throws(State.Failure) -> State.OperationValue {
    try await self.store.fetch(using: context, handler: handler)
  }

  /// Creates a fetch without starting it.
  ///
  /// The state starts loading at once; the fetch starts when the task is first awaited.
  ///
  /// - Parameter context: The context of the fetch; the store's context by default.
  /// - Returns: The task of the fetch.
  public func fetchTask(
    using context: OperationContext? = nil
  ) -> OperationTask<State.OperationValue, State.Failure> {
    self.store.fetchTask(using: context)
  }
}
