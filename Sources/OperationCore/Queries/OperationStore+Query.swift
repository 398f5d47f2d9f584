extension OperationStore {
  /// Creates a query store that no client manages.
  ///
  /// - Parameters:
  ///   - query: The query.
  ///   - initialState: The state to start with.
  ///   - initialContext: The context before the query's setup.
  /// - Returns: A new store.
  public static func detached<Query: QueryRequest>(
    query: sending Query,
    initialState: Query.State,
    initialContext: OperationContext = OperationContext()
  ) -> OperationStore<Query.State> where State == QueryState<Query.Value, Query.Failure> {
    OperationStore(operation: query, initialState: initialState, initialContext: initialContext)
  }

  /// Creates a query store that no client manages.
  ///
  /// ```swift
  /// let store = OperationStore.detached(query: PostQuery(id: 1), initialValue: nil)
  /// ```
  ///
  /// - Parameters:
  ///   - query: The query.
  ///   - initialValue: The value to start with.
  ///   - initialContext: The context before the query's setup.
  /// - Returns: A new store.
  public static func detached<Query: QueryRequest>(
    query: sending Query,
    initialValue: Query.State.StateValue,
    initialContext: OperationContext = OperationContext()
  ) -> OperationStore<Query.State> where State == QueryState<Query.Value, Query.Failure> {
    OperationStore(
      operation: query,
      initialState: QueryState(initialValue: initialValue),
      initialContext: initialContext
    )
  }

  /// Creates a store for a query with a default value, which no client manages.
  ///
  /// - Parameters:
  ///   - query: The query with its default value.
  ///   - initialContext: The context before the query's setup.
  /// - Returns: A new store.
  public static func detached<Query: QueryRequest>(
    query: sending Query.Default,
    initialContext: OperationContext = OperationContext()
  ) -> OperationStore<Query.Default.State> where State == DefaultStateOperation<Query>.State {
    let initialState = query.initialState
    return OperationStore(
      operation: query,
      initialState: initialState,
      initialContext: initialContext
    )
  }
}

extension DefaultStateOperation where Operation: QueryRequest {
  package var initialState: State {
    DefaultOperationState(QueryState(initialValue: nil), defaultValue: self.defaultValue)
  }
}

extension OperationStore where State: _QueryStateProtocol {
  /// Fetches the query's value.
  ///
  /// Cancelling the calling task cancels the fetch (with `deduplicated()`, the caller stops
  /// waiting and the shared run is cancelled once no caller is left). A cancelled fetch is
  /// recorded like a failed one: the store's status becomes
  /// `.result(.failure(CancellationError()))`, ``QueryState/error`` holds the
  /// `CancellationError`, and ``OperationStatus/isCancelled`` is `true`.
  ///
  /// - Parameters:
  ///   - context: The context of the fetch; the store's context by default.
  ///   - handler: Receives the events of this fetch only.
  /// - Returns: The fetched value.
  /// - Throws: The error of the fetch, `CancellationError` when it was cancelled.
  @discardableResult
  public func fetch(
    using context: OperationContext? = nil,
    handler: QueryEventHandler<State> = QueryEventHandler()
  ) async throws(State.Failure) -> State.OperationValue {
    try await self.run(using: context, handler: handler.operationEventHandler)
  }

  /// Creates a fetch without starting it; see ``runTask(using:)``.
  ///
  /// - Parameter context: The context of the fetch; the store's context by default.
  /// - Returns: The task of the fetch.
  public func fetchTask(
    using context: OperationContext? = nil
  ) -> OperationTask<State.OperationValue, State.Failure> {
    self.runTask(using: context)
  }

  /// Subscribes to the store's events; see ``subscribe(with:)-(OperationEventHandler<State>)``.
  ///
  /// - Parameter handler: The callbacks.
  /// - Returns: A subscription that ends when cancelled or released.
  public func subscribe(with handler: QueryEventHandler<State>) -> OperationSubscription {
    self.subscribe(with: handler.operationEventHandler)
  }
}
