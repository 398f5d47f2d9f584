public import IdentifiedCollections

/// The state of a paginated request; lets ``OperationStore`` offer its page methods for paginated
/// requests and their wrappers, such as a request with a default value.
public protocol _PaginatedStateProtocol<PageID, PageValue>: OperationState
where
  StateValue == Pages<PageID, PageValue>,
  OperationValue == PaginatedOperationValue<PageID, PageValue>,
  StatusValue == StateValue
{
  /// The type that identifies a page.
  associatedtype PageID: Hashable & Sendable

  /// The type of value of a page.
  associatedtype PageValue: Sendable

  /// The identifier of the first page a store fetches.
  var initialPageId: PageID { get }

  /// The identifier of the page after the last page, or `nil` when there is none.
  var nextPageId: PageID? { get }

  /// The identifier of the page before the first page, or `nil` when there is none.
  var previousPageId: PageID? { get }

  /// The refetches of every page that are scheduled or running.
  var allPagesActiveTasks: IdentifiedArrayOf<OperationTask<OperationValue, Failure>> { get }

  /// The fetches of the initial page that are scheduled or running.
  var initialPageActiveTasks: IdentifiedArrayOf<OperationTask<OperationValue, Failure>> { get }

  /// The fetches of the next page that are scheduled or running.
  var nextPageActiveTasks: IdentifiedArrayOf<OperationTask<OperationValue, Failure>> { get }

  /// The fetches of the previous page that are scheduled or running.
  var previousPageActiveTasks: IdentifiedArrayOf<OperationTask<OperationValue, Failure>> { get }

  /// The pages that fetches build on: ``OperationState/currentValue``, unless the state shows a
  /// default value in place of its pages.
  var _currentPages: Pages<PageID, PageValue> { get }
}

extension _PaginatedStateProtocol {
  /// The current value.
  public var _currentPages: Pages<PageID, PageValue> {
    self.currentValue
  }
}

// MARK: - Has page

extension _PaginatedStateProtocol {
  /// Whether ``OperationStore/fetchNextPage(using:handler:)`` would fetch a page: the list is
  /// empty (so the initial page is next) or ``nextPageId`` is known.
  @inlinable
  public var hasNextPage: Bool {
    self._currentPages.isEmpty || self.nextPageId != nil
  }

  /// Whether ``OperationStore/fetchPreviousPage(using:handler:)`` would fetch a page: the list is
  /// empty (so the initial page is next) or ``previousPageId`` is known.
  @inlinable
  public var hasPreviousPage: Bool {
    self._currentPages.isEmpty || self.previousPageId != nil
  }
}

// MARK: - Is loading

extension _PaginatedStateProtocol {
  /// Whether a fetch of the next page is scheduled or running.
  public var isLoadingNextPage: Bool {
    !self.nextPageActiveTasks.isEmpty
  }

  /// Whether a fetch of the previous page is scheduled or running.
  public var isLoadingPreviousPage: Bool {
    !self.previousPageActiveTasks.isEmpty
  }

  /// Whether a refetch of every page is scheduled or running.
  public var isLoadingAllPages: Bool {
    !self.allPagesActiveTasks.isEmpty
  }

  /// Whether a fetch of the initial page is scheduled or running.
  public var isLoadingInitialPage: Bool {
    !self.initialPageActiveTasks.isEmpty
  }
}

// MARK: - Paging request

extension _PaginatedStateProtocol {
  /// What a run with this context fetches, given the state now.
  ///
  /// A plain run fetches the initial page. The next or previous page needs a non-empty list and a
  /// known identifier; without them the initial page is fetched instead.
  @inlinable
  func pagingRequest(in context: OperationContext) -> PagingRequest<PageID> {
    switch context.paginatedFetchType {
    case nil:
      return .initialPage
    case .allPages:
      return .allPages
    case .nextPage:
      guard !self._currentPages.isEmpty, let id = self.nextPageId else { return .initialPage }
      return .nextPage(id)
    case .previousPage:
      guard !self._currentPages.isEmpty, let id = self.previousPageId else { return .initialPage }
      return .previousPage(id)
    }
  }

  /// The list that results from merging `value` into the current pages.
  ///
  /// Stores deliver a run's final result after merging it, so when the fetched page is already in
  /// the list, the list is returned as it is, without a copy.
  func pages(
    merging value: PaginatedOperationValue<PageID, PageValue>,
    in context: OperationContext
  ) -> Pages<PageID, PageValue> {
    var pages = self._currentPages
    let page: Page<PageID, PageValue>
    switch value.runValue {
    case .allPages(let all):
      return all
    case .initialPage(let initial):
      guard context.paginatedFetchType != nil else { return [initial] }
      page = initial
    case .nextPage(let next):
      page = next.page
    case .previousPage(let previous):
      page = previous.page
    }
    guard pages.index(id: page.id) == nil else { return pages }
    pages.merge(value.runValue, replacingOnInitialPage: false)
    return pages
  }
}

// MARK: - Merging

extension IdentifiedArray {
  /// Merges a run's pages into this list, in place.
  ///
  /// - Every page replaces the list.
  /// - The initial page replaces the list when `replacingOnInitialPage` (a plain run), and
  ///   otherwise replaces the page with its identifier or goes at the end.
  /// - The next page goes after the page it was fetched after, the previous page before the page
  ///   it was fetched before; a page that is already in the list is replaced where it is, and a
  ///   page whose neighbour left the list is dropped.
  ///
  /// - Complexity: O(1) amortized to add a page at the end; O(*n*) to insert elsewhere.
  @inlinable
  mutating func merge<PageValue>(
    _ runValue: PaginatedOperationValue<ID, PageValue>.RunValue,
    replacingOnInitialPage: Bool
  ) where ID: Sendable, Element == Page<ID, PageValue> {
    switch runValue {
    case .allPages(let pages):
      self = pages
    case .initialPage(let page):
      if replacingOnInitialPage {
        self = [page]
      } else {
        self[id: page.id] = page
      }
    case .nextPage(let next):
      guard let index = self.index(id: next.lastPageId) else { return }
      self.insertOrUpdate(next.page, at: index + 1)
    case .previousPage(let previous):
      guard let index = self.index(id: previous.firstPageId) else { return }
      self.insertOrUpdate(previous.page, at: index)
    }
  }

  @inlinable
  mutating func insertOrUpdate<PageValue>(
    _ page: Page<ID, PageValue>,
    at index: Int
  ) where ID: Sendable, Element == Page<ID, PageValue> {
    let (inserted, position) = self.insert(page, at: index)
    if !inserted {
      self.update(page, at: position)
    }
  }
}
