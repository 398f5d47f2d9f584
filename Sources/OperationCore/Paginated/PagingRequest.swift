/// What a run of a ``PaginatedRequest`` fetches.
///
/// The store derives the request of each run from the method that started it and from the state
/// at the time the run starts: ``OperationStore/fetchNextPage(using:handler:)`` on a list that
/// already has pages becomes ``nextPage(_:)``, on an empty list ``initialPage``; a plain
/// ``OperationStore/run(using:handler:)`` is always ``initialPage``.
public enum PagingRequest<PageID: Hashable & Sendable>: Hashable, Sendable {
  /// Fetch the page with this identifier and put it after the last page.
  case nextPage(PageID)

  /// Fetch the page with this identifier and put it before the first page.
  case previousPage(PageID)

  /// Fetch the initial page.
  case initialPage

  /// Fetch every page again, from the first one.
  case allPages
}
