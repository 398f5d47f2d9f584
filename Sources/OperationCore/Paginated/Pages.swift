public import IdentifiedCollections

/// The ordered list of pages that a ``PaginatedRequest`` has fetched, with at most one page per
/// identifier.
///
/// The list is an `IdentifiedArray`, so a page can be read by its identifier in constant time:
///
/// ```swift
/// let second = store.currentValue[id: 2]
/// ```
public typealias Pages<PageID: Hashable & Sendable, PageValue: Sendable> =
  IdentifiedArrayOf<Page<PageID, PageValue>>

/// The ``Pages`` of a paginated request type, spelled with one generic parameter.
///
/// ```swift
/// let pages: PagesFor<FeedQuery> = store.currentValue
/// ```
public typealias PagesFor<Request: PaginatedRequest> = Pages<Request.PageID, Request.PageValue>
