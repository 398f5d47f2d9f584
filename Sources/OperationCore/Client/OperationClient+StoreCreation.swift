extension OperationClient {
  /// Creates the stores of a client, for example by adding default modifiers to every operation.
  public protocol StoreCreator {
    /// Creates a store for an operation.
    ///
    /// - Parameters:
    ///   - operation: The operation.
    ///   - context: The client's default context.
    ///   - initialState: The state to start with.
    /// - Returns: The new store.
    func store<Operation: StatefulOperationRequest>(
      for operation: sending Operation,
      in context: OperationContext,
      with initialState: Operation.State
    ) -> OperationStore<Operation.State>
  }

  /// Creates stores inside ``OperationClient/withStores(matching:perform:)``.
  ///
  /// A store it creates joins the client only if it is in the edited collection when the closure
  /// returns.
  public struct CreateStore: ~Copyable {
    let creator: any StoreCreator & Sendable
    let context: OperationContext
  }
}

extension OperationClient.CreateStore {
  /// Creates a store for an operation with an initial state.
  ///
  /// - Parameters:
  ///   - operation: The operation.
  ///   - initialState: The state to start with.
  /// - Returns: The new store.
  public func callAsFunction<Operation: StatefulOperationRequest>(
    for operation: sending Operation,
    initialState: Operation.State
  ) -> OperationStore<Operation.State> {
    let store = self.creator.store(for: operation, in: self.context, with: initialState)
    store.recordLookupOperationType(Operation.self)
    return store
  }

  /// Creates a store for a query with an initial state.
  ///
  /// - Parameters:
  ///   - query: The query.
  ///   - initialState: The state to start with.
  /// - Returns: The new store.
  @_disfavoredOverload
  public func callAsFunction<Query: QueryRequest>(
    for query: sending Query,
    initialState: Query.State
  ) -> OperationStore<Query.State> {
    let store = self.creator.store(for: query, in: self.context, with: initialState)
    store.recordLookupOperationType(Query.self)
    return store
  }

  /// Creates a store for a query.
  ///
  /// - Parameters:
  ///   - query: The query.
  ///   - initialValue: The value to start with.
  /// - Returns: The new store.
  public func callAsFunction<Query: QueryRequest>(
    for query: sending Query,
    initialValue: Query.Value? = nil
  ) -> OperationStore<Query.State> where Query.State == QueryState<Query.Value, Query.Failure> {
    self.callAsFunction(for: query, initialState: QueryState(initialValue: initialValue))
  }

  /// Creates a store for a query with a default value.
  ///
  /// - Parameter query: The query.
  /// - Returns: The new store.
  public func callAsFunction<Query: QueryRequest>(
    for query: sending Query.Default
  ) -> OperationStore<Query.Default.State> {
    let initialState = query.initialState
    return self.callAsFunction(for: query, initialState: initialState)
  }
}

// MARK: - Query conveniences

extension OperationClient {
  /// The store for a query, with an initial state.
  ///
  /// - Parameters:
  ///   - query: The query.
  ///   - initialState: The state of a new store.
  ///   - fileID: The file ID of the call, where a duplicate-path warning points.
  ///   - filePath: The file path of the call.
  ///   - line: The line of the call.
  ///   - column: The column of the call.
  /// - Returns: The store.
  public func store<Query: QueryRequest>(
    for query: sending Query,
    initialState: Query.State,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> OperationStore<Query.State> {
    self.makeStore(
      for: query,
      initialState: initialState,
      fileID: fileID,
      filePath: filePath,
      line: line,
      column: column
    )
  }

  /// The store for a query.
  ///
  /// - Parameters:
  ///   - query: The query.
  ///   - initialValue: The value of a new store.
  ///   - fileID: The file ID of the call, where a duplicate-path warning points.
  ///   - filePath: The file path of the call.
  ///   - line: The line of the call.
  ///   - column: The column of the call.
  /// - Returns: The store.
  public func store<Query: QueryRequest>(
    for query: sending Query,
    initialValue: Query.Value? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> OperationStore<Query.State> where Query.State == QueryState<Query.Value, Query.Failure> {
    self.store(
      for: query,
      initialState: QueryState(initialValue: initialValue),
      fileID: fileID,
      filePath: filePath,
      line: line,
      column: column
    )
  }

  /// The store for a query with a default value.
  ///
  /// - Parameters:
  ///   - query: The query.
  ///   - fileID: The file ID of the call, where a duplicate-path warning points.
  ///   - filePath: The file path of the call.
  ///   - line: The line of the call.
  ///   - column: The column of the call.
  /// - Returns: The store.
  public func store<Query: QueryRequest>(
    for query: sending Query.Default,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> OperationStore<Query.Default.State> {
    let initialState = query.initialState
    return self.store(
      for: query,
      initialState: initialState,
      fileID: fileID,
      filePath: filePath,
      line: line,
      column: column
    )
  }
}
