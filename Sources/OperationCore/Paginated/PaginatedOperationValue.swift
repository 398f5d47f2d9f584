public import IdentifiedCollections

/// What a run of a ``PaginatedRequest`` returns: the page or pages it fetched, and where they go.
///
/// Stores merge this value into their ``Pages`` (see ``PaginatedState``); the store's page methods
/// unwrap it for you, so you rarely read it yourself. You do not create it: the default
/// `run(isolation:in:with:)` of ``PaginatedRequest`` does.
public struct PaginatedOperationValue<PageID: Hashable & Sendable, PageValue: Sendable>: Sendable {
  /// What the run fetched.
  public let runValue: RunValue

  /// The identifier of the page after the resulting list, when the run computed it.
  @usableFromInline var nextPageId: PageIDResult

  /// The identifier of the page before the resulting list, when the run computed it.
  @usableFromInline var previousPageId: PageIDResult

  @inlinable
  init(
    runValue: RunValue,
    nextPageId: PageIDResult = .deferred,
    previousPageId: PageIDResult = .deferred
  ) {
    self.runValue = runValue
    self.nextPageId = nextPageId
    self.previousPageId = previousPageId
  }
}

extension PaginatedOperationValue {
  /// A neighbouring page identifier that a run either computed, possibly as "none", or left for
  /// a later run to compute (yielded values leave them).
  @usableFromInline
  enum PageIDResult: Hashable, Sendable {
    case computed(PageID?)
    case deferred
  }
}

extension PaginatedOperationValue {
  /// What a run of a ``PaginatedRequest`` fetched.
  public enum RunValue: Sendable {
    /// Every page, refetched in order; the list replaces the store's pages.
    case allPages(Pages<PageID, PageValue>)

    /// The page after the last page.
    case nextPage(NextPage)

    /// The page before the first page.
    case previousPage(PreviousPage)

    /// The initial page.
    case initialPage(Page<PageID, PageValue>)
  }
}

extension PaginatedOperationValue.RunValue {
  /// A page fetched to go after the last page.
  public struct NextPage: Sendable {
    /// The fetched page.
    public let page: Page<PageID, PageValue>

    /// The identifier of the page that the fetched page goes after.
    public let lastPageId: PageID

    @inlinable
    init(page: Page<PageID, PageValue>, lastPageId: PageID) {
      self.page = page
      self.lastPageId = lastPageId
    }
  }

  /// A page fetched to go before the first page.
  public struct PreviousPage: Sendable {
    /// The fetched page.
    public let page: Page<PageID, PageValue>

    /// The identifier of the page that the fetched page goes before.
    public let firstPageId: PageID

    @inlinable
    init(page: Page<PageID, PageValue>, firstPageId: PageID) {
      self.page = page
      self.firstPageId = firstPageId
    }
  }
}

extension PaginatedOperationValue: Equatable where PageValue: Equatable {}
extension PaginatedOperationValue: Hashable where PageValue: Hashable {}
extension PaginatedOperationValue.RunValue: Equatable where PageValue: Equatable {}
extension PaginatedOperationValue.RunValue: Hashable where PageValue: Hashable {}
extension PaginatedOperationValue.RunValue.NextPage: Equatable where PageValue: Equatable {}
extension PaginatedOperationValue.RunValue.NextPage: Hashable where PageValue: Hashable {}
extension PaginatedOperationValue.RunValue.PreviousPage: Equatable where PageValue: Equatable {}
extension PaginatedOperationValue.RunValue.PreviousPage: Hashable where PageValue: Hashable {}
