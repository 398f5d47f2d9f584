public import IdentifiedCollections

// MARK: - Creation

extension OperationStore {
  /// Creates a store for a paginated request that no client manages.
  ///
  /// ```swift
  /// let store = OperationStore.detached(query: FeedQuery())
  /// try await store.fetchNextPage()
  /// ```
  ///
  /// - Parameters:
  ///   - query: The paginated request.
  ///   - initialValue: The pages to start with.
  ///   - initialContext: The context before the request's setup.
  /// - Returns: A new store.
  public static func detached<Query: PaginatedRequest>(
    query: sending Query,
    initialValue: Query.State.StateValue = [],
    initialContext: OperationContext = OperationContext()
  ) -> OperationStore<Query.State>
  where State == PaginatedState<Query.PageID, Query.PageValue, Query.PageFailure> {
    let initialState = PaginatedState<Query.PageID, Query.PageValue, Query.PageFailure>(
      initialValue: initialValue,
      initialPageId: query.initialPageId
    )
    return OperationStore(
      operation: query,
      initialState: initialState,
      initialContext: initialContext
    )
  }

  /// Creates a store for a paginated request with default pages, which no client manages.
  ///
  /// - Parameters:
  ///   - query: The paginated request with its default pages.
  ///   - initialContext: The context before the request's setup.
  /// - Returns: A new store.
  public static func detached<Query: PaginatedRequest>(
    query: sending Query.Default,
    initialContext: OperationContext = OperationContext()
  ) -> OperationStore<Query.Default.State> where State == DefaultStateOperation<Query>.State {
    let initialState = query.initialPaginatedState
    return OperationStore(
      operation: query,
      initialState: initialState,
      initialContext: initialContext
    )
  }
}

extension DefaultStateOperation where Operation: PaginatedRequest {
  /// An empty paginated state that shows the default pages.
  package var initialPaginatedState: State {
    DefaultOperationState(
      PaginatedState(initialValue: [], initialPageId: self.operation.initialPageId),
      defaultValue: self.defaultValue
    )
  }
}

// MARK: - Fetching pages

extension OperationStore where State: _PaginatedStateProtocol {
  /// Fetches the page after the last page, or the initial page when there are no pages.
  ///
  /// Returns `nil` without fetching when ``PaginatedState/hasNextPage`` is `false`. The fetch
  /// waits for fetches of the initial page and refetches of every page in flight, and may run
  /// alongside a fetch of the previous page. Its task is named after the store, for example
  /// `OperationStore<PaginatedState<Int, FeedPage, Error>> Fetch Next Page Task`, unless the
  /// context names it.
  ///
  /// ```swift
  /// if let page = try await store.fetchNextPage() {
  ///   print("Fetched page \(page.id)")
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - context: The context of the fetch; the store's context by default.
  ///   - handler: Receives the events of this fetch only; it does not count as a subscriber.
  /// - Returns: The fetched page, or `nil` when there is no next page.
  /// - Throws: The error of the fetch.
  @discardableResult
  @inlinable
  public func fetchNextPage(
    using context: OperationContext? = nil,
    handler: PaginatedEventHandler<State> = PaginatedEventHandler()
  ) async throws(State.Failure) -> Page<State.PageID, State.PageValue>? {
    let task = self.withExclusiveAccess { store in
      store.state.hasNextPage
        ? store.pageTask(.nextPage, using: context, handler: handler) : nil
    }
    guard let task else { return nil }
    return Self.nextPage(from: try await task.runIfNeeded())
  }

  /// Creates a fetch of the page after the last page without starting it; see
  /// ``fetchNextPage(using:handler:)``.
  ///
  /// When there is no next page, the task fetches nothing and returns `nil`.
  ///
  /// - Parameter context: The context of the fetch; the store's context by default.
  /// - Returns: The task of the fetch.
  public func fetchNextPageTask(
    using context: OperationContext? = nil
  ) -> OperationTask<Page<State.PageID, State.PageValue>?, State.Failure> {
    self.withExclusiveAccess { store in
      guard store.state.hasNextPage else {
        return store.emptyPageTask(.nextPage, using: context)
      }
      return store.pageTask(.nextPage, using: context, handler: nil).map(Self.nextPage(from:))
    }
  }

  /// Fetches the page before the first page, or the initial page when there are no pages.
  ///
  /// Returns `nil` without fetching when ``PaginatedState/hasPreviousPage`` is `false`. The fetch
  /// waits for fetches of the initial page and refetches of every page in flight, and may run
  /// alongside a fetch of the next page. Its task is named `… Fetch Previous Page Task` unless
  /// the context names it.
  ///
  /// - Parameters:
  ///   - context: The context of the fetch; the store's context by default.
  ///   - handler: Receives the events of this fetch only; it does not count as a subscriber.
  /// - Returns: The fetched page, or `nil` when there is no previous page.
  /// - Throws: The error of the fetch.
  @discardableResult
  public func fetchPreviousPage(
    using context: OperationContext? = nil,
    handler: PaginatedEventHandler<State> = PaginatedEventHandler()
  ) async throws(State.Failure) -> Page<State.PageID, State.PageValue>? {
    let task = self.withExclusiveAccess { store in
      store.state.hasPreviousPage
        ? store.pageTask(.previousPage, using: context, handler: handler) : nil
    }
    guard let task else { return nil }
    return Self.previousPage(from: try await task.runIfNeeded())
  }

  /// Creates a fetch of the page before the first page without starting it; see
  /// ``fetchPreviousPage(using:handler:)``.
  ///
  /// When there is no previous page, the task fetches nothing and returns `nil`.
  ///
  /// - Parameter context: The context of the fetch; the store's context by default.
  /// - Returns: The task of the fetch.
  public func fetchPreviousPageTask(
    using context: OperationContext? = nil
  ) -> OperationTask<Page<State.PageID, State.PageValue>?, State.Failure> {
    self.withExclusiveAccess { store in
      guard store.state.hasPreviousPage else {
        return store.emptyPageTask(.previousPage, using: context)
      }
      return store.pageTask(.previousPage, using: context, handler: nil)
        .map(Self.previousPage(from:))
    }
  }

  /// Refetches every page, one after the other, from the first page.
  ///
  /// The refetch starts at the first page and asks ``PaginatedRequest/pageId(after:using:in:)``
  /// for each following page, until it has refetched as many pages as the list had or there is
  /// no next page; the refetched pages then replace the list. While it runs, yielded values show
  /// the pages refetched so far. With no pages it fetches nothing and returns an empty list.
  ///
  /// The refetch waits for the fetches of the initial, next and previous pages in flight. Its
  /// task is always named `… Fetch All Pages Task`, even when the context names it otherwise.
  ///
  /// - Parameters:
  ///   - context: The context of the refetch; the store's context by default.
  ///   - handler: Receives the events of this refetch only; it does not count as a subscriber.
  /// - Returns: The refetched pages.
  /// - Throws: The error of the first page that failed.
  @discardableResult
  public func refetchAllPages(
    using context: OperationContext? = nil,
    handler: PaginatedEventHandler<State> = PaginatedEventHandler()
  ) async throws(State.Failure) -> Pages<State.PageID, State.PageValue> {
    let value = try await self.pageTask(.allPages, using: context, handler: handler).runIfNeeded()
    return self.allPages(from: value)
  }

  /// Creates a refetch of every page without starting it; see
  /// ``refetchAllPages(using:handler:)``.
  ///
  /// - Parameter context: The context of the refetch; the store's context by default.
  /// - Returns: The task of the refetch.
  public func refetchAllPagesTask(
    using context: OperationContext? = nil
  ) -> OperationTask<Pages<State.PageID, State.PageValue>, State.Failure> {
    self.pageTask(.allPages, using: context, handler: nil).map { [weak self] value in
      self?.allPages(from: value) ?? Self.fetchedPages(from: value) ?? []
    }
  }

  /// Subscribes to the store's events, page events included; see
  /// ``subscribe(with:)-(OperationEventHandler<State>)``.
  ///
  /// - Parameter handler: The callbacks.
  /// - Returns: A subscription that ends when cancelled or released.
  public func subscribe(with handler: PaginatedEventHandler<State>) -> OperationSubscription {
    self.subscribe(with: self.operationEventHandler(for: handler))
  }
}

// MARK: - Helpers

extension OperationStore where State: _PaginatedStateProtocol {
  @inlinable
  func pageTask(
    _ fetchType: PaginatedFetchType,
    using context: OperationContext?,
    handler: PaginatedEventHandler<State>?
  ) -> OperationTask<State.OperationValue, State.Failure> {
    var context = context ?? self.context
    context.paginatedFetchType = fetchType
    return self.runTask(
      using: context,
      handler: handler.map(self.operationEventHandler(for:)),
      name: Self.taskName(for: fetchType),
      overridesName: fetchType == .allPages
    )
  }

  private func emptyPageTask(
    _ fetchType: PaginatedFetchType,
    using context: OperationContext?
  ) -> OperationTask<Page<State.PageID, State.PageValue>?, State.Failure> {
    var context = context ?? self.context
    if context.operationTaskConfiguration.name == nil {
      context.operationTaskConfiguration.name =
        "\(typeName(Self.self)) \(Self.taskName(for: fetchType))"
    }
    return OperationTask(context: context) { _, _ in nil }
  }

  @usableFromInline
  static func taskName(for fetchType: PaginatedFetchType) -> String {
    switch fetchType {
    case .nextPage: "Fetch Next Page Task"
    case .previousPage: "Fetch Previous Page Task"
    case .allPages: "Fetch All Pages Task"
    }
  }

  @usableFromInline
  func operationEventHandler(
    for handler: PaginatedEventHandler<State>
  ) -> OperationEventHandler<State> {
    handler.operationEventHandler { [weak self] value, context in
      self?.state.pages(merging: value, in: context) ?? Self.fetchedPages(from: value) ?? []
    }
  }

  @usableFromInline
  static func nextPage(
    from value: State.OperationValue
  ) -> Page<State.PageID, State.PageValue>? {
    switch value.runValue {
    case .nextPage(let next): next.page
    case .initialPage(let page): page
    case .previousPage, .allPages: nil
    }
  }

  private static func previousPage(
    from value: State.OperationValue
  ) -> Page<State.PageID, State.PageValue>? {
    switch value.runValue {
    case .previousPage(let previous): previous.page
    case .initialPage(let page): page
    case .nextPage, .allPages: nil
    }
  }

  private static func fetchedPages(
    from value: State.OperationValue
  ) -> Pages<State.PageID, State.PageValue>? {
    guard case .allPages(let pages) = value.runValue else { return nil }
    return pages
  }

  private func allPages(from value: State.OperationValue) -> Pages<State.PageID, State.PageValue> {
    Self.fetchedPages(from: value) ?? self.currentValue
  }
}
