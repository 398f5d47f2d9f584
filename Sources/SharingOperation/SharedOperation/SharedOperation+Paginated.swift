public import OperationCore

// MARK: - Initializers

extension SharedOperation {
  /// Creates a shared paginated operation.
  ///
  /// The wrapped value is the list of pages fetched so far:
  ///
  /// ```swift
  /// @SharedOperation(Post.feedQuery) var feed
  ///
  /// try await $feed.fetchNextPage()
  /// ```
  ///
  /// - Parameters:
  ///   - wrappedValue: The pages of a new store; ignored when the client already has a store for
  ///     the query.
  ///   - query: The paginated query.
  ///   - client: The client to get the store from; `@Dependency(\.defaultOperationClient)` when
  ///     `nil`.
  ///   - scheduler: Where the store's state changes are applied to the wrapper.
  ///   - placeholder: What the wrapper shows while the store has no result; see
  ///     ``SharedOperationPlaceholder``.
  public init<Query: PaginatedRequest>(
    wrappedValue: Pages<Query.PageID, Query.PageValue> = [],
    _ query: sending Query,
    client: OperationClient? = nil,
    scheduler: some SharedOperationStateScheduler & Sendable = .synchronous,
    placeholder: SharedOperationPlaceholder<State> = .none
  ) where State == PaginatedState<Query.PageID, Query.PageValue, Query.PageFailure> {
    let initialState = PaginatedState<Query.PageID, Query.PageValue, Query.PageFailure>(
      initialValue: wrappedValue,
      initialPageId: query.initialPageId
    )
    self.init(
      query,
      initialState: initialState,
      client: client,
      scheduler: scheduler,
      placeholder: placeholder
    )
  }

  /// Creates a shared paginated operation with a default value.
  ///
  /// - Parameters:
  ///   - query: The paginated query with its default value.
  ///   - client: The client to get the store from; `@Dependency(\.defaultOperationClient)` when
  ///     `nil`.
  ///   - scheduler: Where the store's state changes are applied to the wrapper.
  ///   - placeholder: What the wrapper shows while the store has no result; see
  ///     ``SharedOperationPlaceholder``.
  public init<Query: PaginatedRequest>(
    _ query: sending Query.Default,
    client: OperationClient? = nil,
    scheduler: some SharedOperationStateScheduler & Sendable = .synchronous,
    placeholder: SharedOperationPlaceholder<State> = .none
  ) where State == DefaultStateOperation<Query>.State {
    let initialState = query.initialPaginatedState
    self.init(
      query,
      initialState: initialState,
      client: client,
      scheduler: scheduler,
      placeholder: placeholder
    )
  }

  /// Creates an unbacked shared paginated operation: one with pages but no query.
  ///
  /// ```swift
  /// @SharedOperation<Post.FeedQuery.State> var feed = SharedOperation(
  ///   wrappedValue: [],
  ///   initialPageId: 0
  /// )
  /// ```
  ///
  /// Assign a shared operation created from a paginated query to its projected value before
  /// fetching; fetching before that reports an issue and fails with
  /// ``UnbackedSharedOperationError``.
  ///
  /// - Parameters:
  ///   - wrappedValue: The pages.
  ///   - initialPageId: The identifier of the first page.
  public init<PageID: Hashable & Sendable, PageValue: Sendable, PageFailure: Error>(
    wrappedValue: Pages<PageID, PageValue>,
    initialPageId: PageID
  ) where State == PaginatedState<PageID, PageValue, PageFailure> {
    self.init(
      initialState: PaginatedState(initialValue: wrappedValue, initialPageId: initialPageId)
    )
  }
}

// MARK: - Fetching pages

extension SharedOperation where State: _PaginatedStateProtocol {
  /// Fetches the page after the last page, or the initial page when there are no pages yet.
  ///
  /// When the state says there is no next page, nothing is fetched and the result is `nil`. It
  /// may run alongside ``fetchPreviousPage(using:handler:)``.
  ///
  /// - Parameters:
  ///   - context: The context of the fetch; the store's context by default.
  ///   - handler: Receives the events of this fetch only; it does not count as a subscriber.
  /// - Returns: The fetched page, or `nil` when there was none to fetch.
  /// - Throws: The error of the fetch.
  @discardableResult
  public func fetchNextPage(
    using context: OperationContext? = nil,
    handler: PaginatedEventHandler<State> = PaginatedEventHandler()
  ) async throws(State.Failure) -> Page<State.PageID, State.PageValue>? {
    try await self.store.fetchNextPage(using: context, handler: handler)
  }

  /// Creates a fetch of the next page without starting it; see
  /// ``fetchNextPage(using:handler:)``.
  ///
  /// - Parameter context: The context of the fetch; the store's context by default.
  /// - Returns: The task of the fetch.
  public func fetchNextPageTask(
    using context: OperationContext? = nil
  ) -> OperationTask<Page<State.PageID, State.PageValue>?, State.Failure> {
    self.store.fetchNextPageTask(using: context)
  }

  /// Fetches the page before the first page, or the initial page when there are no pages yet.
  ///
  /// When the state says there is no previous page, nothing is fetched and the result is `nil`.
  /// It may run alongside ``fetchNextPage(using:handler:)``.
  ///
  /// - Parameters:
  ///   - context: The context of the fetch; the store's context by default.
  ///   - handler: Receives the events of this fetch only; it does not count as a subscriber.
  /// - Returns: The fetched page, or `nil` when there was none to fetch.
  /// - Throws: The error of the fetch.
  @discardableResult
  public func fetchPreviousPage(
    using context: OperationContext? = nil,
    handler: PaginatedEventHandler<State> = PaginatedEventHandler()
  ) async throws(State.Failure) -> Page<State.PageID, State.PageValue>? {
    try await self.store.fetchPreviousPage(using: context, handler: handler)
  }

  /// Creates a fetch of the previous page without starting it; see
  /// ``fetchPreviousPage(using:handler:)``.
  ///
  /// - Parameter context: The context of the fetch; the store's context by default.
  /// - Returns: The task of the fetch.
  public func fetchPreviousPageTask(
    using context: OperationContext? = nil
  ) -> OperationTask<Page<State.PageID, State.PageValue>?, State.Failure> {
    self.store.fetchPreviousPageTask(using: context)
  }

  /// Fetches every page again, one after the other from the first, until the last page or until
  /// there are no more pages.
  ///
  /// With no pages yet, nothing is fetched.
  ///
  /// - Parameters:
  ///   - context: The context of the fetch; the store's context by default.
  ///   - handler: Receives the events of this fetch only; it does not count as a subscriber.
  /// - Returns: The pages.
  /// - Throws: The error of the fetch.
  @discardableResult
  public func refetchAllPages(
    using context: OperationContext? = nil,
    handler: PaginatedEventHandler<State> = PaginatedEventHandler()
  ) async throws(State.Failure) -> Pages<State.PageID, State.PageValue> {
    try await self.store.refetchAllPages(using: context, handler: handler)
  }

  /// Creates a fetch of every page without starting it; see
  /// ``refetchAllPages(using:handler:)``.
  ///
  /// - Parameter context: The context of the fetch; the store's context by default.
  /// - Returns: The task of the fetch.
  public func refetchAllPagesTask(
    using context: OperationContext? = nil
  ) -> OperationTask<Pages<State.PageID, State.PageValue>, State.Failure> {
    self.store.refetchAllPagesTask(using: context)
  }
}
