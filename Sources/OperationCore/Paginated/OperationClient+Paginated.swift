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
  ///   - fileID: The file ID of the call, where a duplicate-path warning points.
  ///   - filePath: The file path of the call.
  ///   - line: The line of the call.
  ///   - column: The column of the call.
  /// - Returns: The store.
  public func store<Query: PaginatedRequest>(
    for query: sending Query,
    initialValue: Query.State.StateValue = [],
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> OperationStore<Query.State> {
    let initialState = PaginatedState<Query.PageID, Query.PageValue, Query.PageFailure>(
      initialValue: initialValue,
      initialPageId: query.initialPageId
    )
    return self.makeStore(
      for: query,
      initialState: initialState,
      fileID: fileID,
      filePath: filePath,
      line: line,
      column: column
    )
  }

  /// The store for a paginated request with default pages.
  ///
  /// - Parameters:
  ///   - query: The paginated request.
  ///   - fileID: The file ID of the call, where a duplicate-path warning points.
  ///   - filePath: The file path of the call.
  ///   - line: The line of the call.
  ///   - column: The column of the call.
  /// - Returns: The store.
  public func store<Query: PaginatedRequest>(
    for query: sending Query.Default,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> OperationStore<Query.Default.State> {
    let initialState = query.initialPaginatedState
    return self.makeStore(
      for: query,
      initialState: initialState,
      fileID: fileID,
      filePath: filePath,
      line: line,
      column: column
    )
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
