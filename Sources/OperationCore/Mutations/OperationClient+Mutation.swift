extension OperationClient {
  /// The store for a mutation.
  ///
  /// A client keeps one store per mutation, whatever arguments it runs with. Its default store
  /// creator never runs a mutation by itself.
  ///
  /// ```swift
  /// let store = client.store(for: CreatePost())
  /// try await store.mutate(with: draft)
  /// ```
  ///
  /// - Parameters:
  ///   - mutation: The mutation.
  ///   - initialValue: The value of a new store before its first attempt.
  ///   - fileID: The file ID of the call, where a duplicate-path warning points.
  ///   - filePath: The file path of the call.
  ///   - line: The line of the call.
  ///   - column: The column of the call.
  /// - Returns: The store.
  public func store<Mutation: MutationRequest>(
    for mutation: sending Mutation,
    initialValue: Mutation.MutateValue? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> OperationStore<Mutation.State>
  where
    Mutation.State == MutationState<
      Mutation.Arguments, Mutation.MutateValue, Mutation.MutateFailure
    >
  {
    self.makeStore(
      for: mutation,
      initialState: MutationState(initialValue: initialValue),
      fileID: fileID,
      filePath: filePath,
      line: line,
      column: column
    )
  }

  /// The store for a mutation with a default value.
  ///
  /// - Parameters:
  ///   - mutation: The mutation.
  ///   - fileID: The file ID of the call, where a duplicate-path warning points.
  ///   - filePath: The file path of the call.
  ///   - line: The line of the call.
  ///   - column: The column of the call.
  /// - Returns: The store.
  public func store<Mutation: MutationRequest>(
    for mutation: sending Mutation.Default,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> OperationStore<Mutation.Default.State> {
    let initialState = mutation.initialState
    return self.makeStore(
      for: mutation,
      initialState: initialState,
      fileID: fileID,
      filePath: filePath,
      line: line,
      column: column
    )
  }
}

extension OperationClient.CreateStore {
  /// Creates a store for a mutation.
  ///
  /// - Parameters:
  ///   - mutation: The mutation.
  ///   - initialValue: The value to show before the first attempt.
  /// - Returns: The new store.
  public func callAsFunction<Mutation: MutationRequest>(
    for mutation: sending Mutation,
    initialValue: Mutation.MutateValue? = nil
  ) -> OperationStore<Mutation.State>
  where
    Mutation.State == MutationState<
      Mutation.Arguments, Mutation.MutateValue, Mutation.MutateFailure
    >
  {
    self.callAsFunction(for: mutation, initialState: MutationState(initialValue: initialValue))
  }

  /// Creates a store for a mutation with a default value.
  ///
  /// - Parameter mutation: The mutation.
  /// - Returns: The new store.
  public func callAsFunction<Mutation: MutationRequest>(
    for mutation: sending Mutation.Default
  ) -> OperationStore<Mutation.Default.State> {
    let initialState = mutation.initialState
    return self.callAsFunction(for: mutation, initialState: initialState)
  }
}
