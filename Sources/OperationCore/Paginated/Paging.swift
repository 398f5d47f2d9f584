public import IdentifiedCollections

/// What a ``PaginatedRequest`` is asked to work on: the page to fetch or to look past, the pages
/// fetched so far, and the kind of fetch.
///
/// The library creates these values and passes them to the requirements of
/// ``PaginatedRequest``; you read them:
///
/// ```swift
/// func fetchPage(
///   isolation: isolated (any Actor)?,
///   using paging: Paging<Int, FeedPage>,
///   in context: OperationContext,
///   with continuation: OperationContinuation<FeedPage, any Error>
/// ) async throws -> FeedPage {
///   try await api.feed(page: paging.pageId)
/// }
/// ```
public struct Paging<PageID: Hashable & Sendable, PageValue: Sendable>: Sendable {
  /// The identifier of the page to fetch, or of the page whose neighbour is asked for.
  public let pageId: PageID

  /// The pages fetched so far; during a refetch of every page, the pages refetched so far.
  public let pages: Pages<PageID, PageValue>

  /// The kind of fetch this paging belongs to.
  public let request: PagingRequest<PageID>

  @usableFromInline
  package init(pageId: PageID, pages: Pages<PageID, PageValue>, request: PagingRequest<PageID>) {
    self.pageId = pageId
    self.pages = pages
    self.request = request
  }
}

extension Paging: Equatable where PageValue: Equatable {}
extension Paging: Hashable where PageValue: Hashable {}
