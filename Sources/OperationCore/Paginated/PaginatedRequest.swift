import IdentifiedCollections

/// An operation that fetches its data one page at a time, such as an endlessly scrolling feed.
///
/// Describe how to fetch one page and how to find the pages around it; the store keeps the
/// pages in order and fetches the next page, the previous page, or every page again on request:
///
/// ```swift
/// struct FeedQuery: PaginatedRequest, Hashable {
///   let initialPageId = 0
///
///   func pageId(
///     after page: Page<Int, FeedPage>,
///     using paging: Paging<Int, FeedPage>,
///     in context: OperationContext
///   ) -> Int? {
///     page.value.hasMore ? page.id + 1 : nil
///   }
///
///   func fetchPage(
///     isolation: isolated (any Actor)?,
///     using paging: Paging<Int, FeedPage>,
///     in context: OperationContext,
///     with continuation: OperationContinuation<FeedPage, any Error>
///   ) async throws -> FeedPage {
///     try await api.feed(page: paging.pageId)
///   }
/// }
///
/// let store = client.store(for: FeedQuery())
/// try await store.fetchNextPage()  // The initial page, since there are no pages yet.
/// try await store.fetchNextPage()  // The page after it.
/// ```
///
/// A store fetches in four ways, which ``Paging/request`` tells the request apart:
///
/// 1. the initial page, when the list is empty or on a plain ``OperationStore/run(using:handler:)``;
/// 2. the next page, after the last one (``OperationStore/fetchNextPage(using:handler:)``);
/// 3. the previous page, before the first one (``OperationStore/fetchPreviousPage(using:handler:)``),
///    which may run alongside a fetch of the next page;
/// 4. every page again, one after the other from the first
///    (``OperationStore/refetchAllPages(using:handler:)``).
///
/// After each fetch, ``pageId(after:using:in:)`` and ``pageId(before:using:in:)`` run at once, so
/// ``PaginatedState/hasNextPage`` and ``PaginatedState/hasPreviousPage`` always say whether there
/// is more to fetch.
///
/// Run outside a store, for example with an ``OperationRunner``, the request fetches its initial
/// page.
public protocol PaginatedRequest<PageID, PageValue, PageFailure>: StatefulOperationRequest
where
  Value == PaginatedOperationValue<PageID, PageValue>,
  State == PaginatedState<PageID, PageValue, PageFailure>,
  Failure == PageFailure
{
  /// The type of value of a page.
  associatedtype PageValue: Sendable

  /// The type that identifies a page, such as a page number, an offset or a cursor.
  associatedtype PageID: Hashable & Sendable

  /// The type of error a page fetch throws.
  associatedtype PageFailure: Error

  /// The identifier of the first page to fetch.
  var initialPageId: PageID { get }

  /// The identifier of the page after a page, or `nil` when it is the last page.
  ///
  /// - Parameters:
  ///   - page: The last page of the list.
  ///   - paging: The list and the kind of fetch.
  ///   - context: The context of the run.
  /// - Returns: The identifier of the next page, or `nil` when there is none.
  func pageId(
    after page: Page<PageID, PageValue>,
    using paging: Paging<PageID, PageValue>,
    in context: OperationContext
  ) -> PageID?

  /// The identifier of the page before a page, or `nil` when it is the first page.
  ///
  /// The default returns `nil`: the list only grows at its end.
  ///
  /// - Parameters:
  ///   - page: The first page of the list.
  ///   - paging: The list and the kind of fetch.
  ///   - context: The context of the run.
  /// - Returns: The identifier of the previous page, or `nil` when there is none.
  func pageId(
    before page: Page<PageID, PageValue>,
    using paging: Paging<PageID, PageValue>,
    in context: OperationContext
  ) -> PageID?

  /// Fetches the value of one page.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - paging: The page to fetch (``Paging/pageId``), the list, and the kind of fetch.
  ///   - context: The context of the run.
  ///   - continuation: Receives intermediate values of the page, such as cached data.
  /// - Returns: The value of the page.
  /// - Throws: The error of the fetch.
  func fetchPage(
    isolation: isolated (any Actor)?,
    using paging: Paging<PageID, PageValue>,
    in context: OperationContext,
    with continuation: OperationContinuation<PageValue, PageFailure>
  ) async throws(PageFailure) -> PageValue
}

extension PaginatedRequest {
  /// Returns `nil`: there is no page before the first one.
  ///
  /// - Parameters:
  ///   - page: The first page of the list.
  ///   - paging: The list and the kind of fetch.
  ///   - context: The context of the run.
  /// - Returns: `nil`.
  public func pageId(
    before page: Page<PageID, PageValue>,
    using paging: Paging<PageID, PageValue>,
    in context: OperationContext
  ) -> PageID? {
    nil
  }
}

// MARK: - Run

extension PaginatedRequest {
  /// Fetches what the running store asks for: the initial page, the next or previous page, or
  /// every page again.
  ///
  /// The kind of fetch comes from the store method that started the run and from the store's
  /// state when the run starts. Outside a paginated store the initial page is fetched.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of the run.
  ///   - continuation: Receives intermediate results.
  /// - Returns: The fetched page or pages.
  /// - Throws: The error of a page fetch.
  @inlinable
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<
      PaginatedOperationValue<PageID, PageValue>, PageFailure
    >
  ) async throws(PageFailure) -> PaginatedOperationValue<PageID, PageValue> {
    let paging = context.paging(for: self)
    switch paging.request {
    case .initialPage:
      return try await self.fetchInitialPage(
        isolation: isolation,
        using: paging,
        in: context,
        with: continuation
      )
    case .nextPage(let id):
      return try await self.fetchNextPage(
        id,
        isolation: isolation,
        using: paging,
        in: context,
        with: continuation
      )
    case .previousPage(let id):
      return try await self.fetchPreviousPage(
        id,
        isolation: isolation,
        using: paging,
        in: context,
        with: continuation
      )
    case .allPages:
      return try await self.refetchAllPages(
        isolation: isolation,
        using: paging,
        in: context,
        with: continuation
      )
    }
  }

  @inlinable
  func fetchInitialPage(
    isolation: isolated (any Actor)?,
    using paging: Paging<PageID, PageValue>,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, PageFailure>
  ) async throws(PageFailure) -> Value {
    let id = paging.pageId
    let value = try await self.fetchPageSendingEvents(
      isolation: isolation,
      using: paging,
      in: context,
      with: continuation
    ) { page in
      .initialPage(page)
    }
    let page = Page(id: id, value: value)
    return PaginatedOperationValue(
      runValue: .initialPage(page),
      nextPageId: .computed(self.pageId(after: page, using: paging, in: context)),
      previousPageId: .computed(self.pageId(before: page, using: paging, in: context))
    )
  }

  @inlinable
  func fetchNextPage(
    _ id: PageID,
    isolation: isolated (any Actor)?,
    using paging: Paging<PageID, PageValue>,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, PageFailure>
  ) async throws(PageFailure) -> Value {
    // NB: The store asks for the next page only when the list has pages.
    guard let last = paging.pages.last, let first = paging.pages.first else {
      return try await self.fetchInitialPage(
        isolation: isolation,
        using: Paging(pageId: self.initialPageId, pages: paging.pages, request: .initialPage),
        in: context,
        with: continuation
      )
    }
    let value = try await self.fetchPageSendingEvents(
      isolation: isolation,
      using: paging,
      in: context,
      with: continuation
    ) { page in
      .nextPage(PaginatedOperationValue.RunValue.NextPage(page: page, lastPageId: last.id))
    }
    let page = Page(id: id, value: value)
    return PaginatedOperationValue(
      runValue: .nextPage(
        PaginatedOperationValue.RunValue.NextPage(page: page, lastPageId: last.id)
      ),
      nextPageId: .computed(self.pageId(after: page, using: paging, in: context)),
      previousPageId: .computed(self.pageId(before: first, using: paging, in: context))
    )
  }

  @inlinable
  func fetchPreviousPage(
    _ id: PageID,
    isolation: isolated (any Actor)?,
    using paging: Paging<PageID, PageValue>,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, PageFailure>
  ) async throws(PageFailure) -> Value {
    // NB: The store asks for the previous page only when the list has pages.
    guard let last = paging.pages.last, let first = paging.pages.first else {
      return try await self.fetchInitialPage(
        isolation: isolation,
        using: Paging(pageId: self.initialPageId, pages: paging.pages, request: .initialPage),
        in: context,
        with: continuation
      )
    }
    let value = try await self.fetchPageSendingEvents(
      isolation: isolation,
      using: paging,
      in: context,
      with: continuation
    ) { page in
      .previousPage(
        PaginatedOperationValue.RunValue.PreviousPage(page: page, firstPageId: first.id)
      )
    }
    let page = Page(id: id, value: value)
    return PaginatedOperationValue(
      runValue: .previousPage(
        PaginatedOperationValue.RunValue.PreviousPage(page: page, firstPageId: first.id)
      ),
      nextPageId: .computed(self.pageId(after: last, using: paging, in: context)),
      previousPageId: .computed(self.pageId(before: page, using: paging, in: context))
    )
  }

  /// Refetches the pages one after the other: the first page of the list (or the initial page),
  /// then each page after the last one refetched, until as many pages as the list had are
  /// refetched or ``pageId(after:using:in:)`` returns `nil`.
  ///
  /// A failed page leaves its progress with the task, so a retry of the run starts at that page.
  @usableFromInline
  func refetchAllPages(
    isolation: isolated (any Actor)?,
    using paging: Paging<PageID, PageValue>,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, PageFailure>
  ) async throws(PageFailure) -> Value {
    let tracker = context.paginatedRefetchTracker
    var progress =
      tracker?.saved(as: PaginatedRefetchProgress<PageID, PageValue>.self)
      ?? PaginatedRefetchProgress(
        targetCount: paging.pages.count,
        firstPageId: paging.pages.first?.id ?? self.initialPageId,
        fetched: []
      )
    while progress.fetched.count < progress.targetCount {
      let id: PageID?
      if let last = progress.fetched.last {
        let lastPaging = Paging(pageId: last.id, pages: progress.fetched, request: .allPages)
        id = self.pageId(after: last, using: lastPaging, in: context)
      } else {
        id = progress.firstPageId
      }
      guard let id else { break }
      let value: PageValue
      do throws(PageFailure) {
        let fetched = progress.fetched
        value = try await self.fetchPageSendingEvents(
          isolation: isolation,
          using: Paging(pageId: id, pages: fetched, request: .allPages),
          in: context,
          with: continuation
        ) { page in
          var pages = fetched
          pages[id: page.id] = page
          return .allPages(pages)
        }
      } catch {
        tracker?.save(progress)
        throw error
      }
      // NB: An identifier that comes around again would refetch the same pages forever.
      guard progress.fetched.append(Page(id: id, value: value)).inserted else {
        progress.fetched[id: id] = Page(id: id, value: value)
        reportWarning(.paginatedRequestRepeatedPageId(requestType: Self.self, pageId: id))
        break
      }
    }
    tracker?.clear()
    let pages = progress.fetched
    let allPaging = Paging(
      pageId: pages.first?.id ?? self.initialPageId,
      pages: pages,
      request: .allPages
    )
    return PaginatedOperationValue(
      runValue: .allPages(pages),
      nextPageId: .computed(
        pages.last.flatMap { self.pageId(after: $0, using: allPaging, in: context) }
      ),
      previousPageId: .computed(
        pages.first.flatMap { self.pageId(before: $0, using: allPaging, in: context) }
      )
    )
  }

  /// Fetches one page, sending its events to the running store and wrapping its yields.
  @inlinable
  func fetchPageSendingEvents(
    isolation: isolated (any Actor)?,
    using paging: Paging<PageID, PageValue>,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, PageFailure>,
    wrapping wrap: @escaping @Sendable (Page<PageID, PageValue>) -> Value.RunValue
  ) async throws(PageFailure) -> PageValue {
    typealias Event = PaginatedPageEvent<PageID, PageValue, PageFailure>
    let id = paging.pageId
    let sink = context.operationEventSink
    sink?.send(Event.started(id), in: context)
    let pageContinuation = OperationContinuation<PageValue, PageFailure> { result, yieldContext in
      let result = result.map { Page(id: id, value: $0) }
      var eventContext = yieldContext ?? context
      eventContext.operationResultUpdateReason = .yieldedResult
      sink?.send(Event.resultReceived(id, result), in: eventContext)
      continuation.yield(
        with: result.map { PaginatedOperationValue(runValue: wrap($0)) },
        using: yieldContext
      )
    }
    let result = await context.performWork(.page(String(describing: id))) {
      () async -> Result<PageValue, PageFailure> in
      do throws(PageFailure) {
        return .success(
          try await self.fetchPage(
            isolation: isolation,
            using: paging,
            in: context,
            with: pageContinuation
          )
        )
      } catch {
        return .failure(error)
      }
    }
    if let sink {
      var finalContext = context
      finalContext.operationResultUpdateReason = .returnedFinalResult
      sink.send(Event.resultReceived(id, result.map { Page(id: id, value: $0) }), in: finalContext)
      sink.send(Event.ended(id), in: context)
    }
    return try result.get()
  }
}
