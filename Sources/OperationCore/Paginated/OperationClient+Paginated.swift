public import IdentifiedCollections

extension OperationClient {
  /// The store for a paginated request.
  ///
  /// ```swift
  /// let store = client.store(for: FeedQuery())
  /// try await store.fetchNextPage()
  /// ```
  ///
  /// - Parameters:
  ///   - query: The paginated request.
  ///   - initialValue: The pages of a new store.
  /// - Returns: The store.
  public func store<Query: PaginatedRequest>(
    for query: sending Query,
    initialValue: Query.State.StateValue = []
  ) -> OperationStore<Query.State> {
    let initialState = PaginatedState<Query.PageID, Query.PageValue, Query.PageFailure>(
      initialValue: initialValue,
      initialPageId: query.initialPageId
    )
    return self.makeStore(for: query, initialState: initialState)
  }

  /// The store for a paginated request with default pages.
  ///
  /// - Parameter query: The paginated request.
  /// - Returns: The store.
  public func store<Query: PaginatedRequest>(
    for query: sending Query.Default
  ) -> OperationStore<Query.Default.State> {
    let initialState = query.initialPaginatedState
    return self.makeStore(for: query, initialState: initialState)
  }
}

extension OperationClient.CreateStore {
  /// Creates a store for a paginated request.
  ///
  /// - Parameters:
  ///   - query: The paginated request.
  ///   - initialValue: The pages to start with.
  /// - Returns: The new store.
  public func callAsFunction<Query: PaginatedRequest>(
    for query: sending Query,
    initialValue: Query.State.StateValue = []
  ) -> OperationStore<Query.State> {
    let initialState = PaginatedState<Query.PageID, Query.PageValue, Query.PageFailure>(
      initialValue: initialValue,
      initialPageId: query.initialPageId
    )
    return self.callAsFunction(for: query, initialState: initialState)
  }

  /// Creates a store for a paginated request with default pages.
  ///
  /// - Parameter query: The paginated request.
  /// - Returns: The new store.
  public func callAsFunction<Query: PaginatedRequest>(
    for query: sending Query.Default
  ) -> OperationStore<Query.Default.State> {
    let initialState = query.initialPaginatedState
    return self.callAsFunction(for: query, initialState: initialState)
  }
}
