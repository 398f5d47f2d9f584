import IdentifiedCollections
import OperationSynchronization

// MARK: - Fetch type

/// The store method that started a run of a paginated request; absent for a plain `run()`.
@usableFromInline
enum PaginatedFetchType: Hashable, Sendable {
  case nextPage
  case previousPage
  case allPages
}

extension OperationContext {
  /// The store method that started this run; `nil` for a plain `run()`, which fetches the initial
  /// page and replaces the list with it.
  @usableFromInline
  var paginatedFetchType: PaginatedFetchType? {
    get { self[PaginatedFetchTypeKey.self] }
    set { self[PaginatedFetchTypeKey.self] = newValue }
  }

  private enum PaginatedFetchTypeKey: Key {
    static let defaultValue: PaginatedFetchType? = nil
  }
}

// MARK: - Refetch progress

/// The progress of one refetch of every page, kept by its task so that a retried run resumes
/// after the pages that already succeeded.
final class PaginatedRefetchTracker: Sendable {
  /// The progress, erased because a context entry cannot be generic; only
  /// ``PaginatedRefetchProgress`` values of the task's page types are stored.
  private let progress = Lock<(any Sendable)?>(nil)

  /// The saved progress, or `nil` when the refetch has not failed yet.
  func saved<PageID, PageValue>(
    as _: PaginatedRefetchProgress<PageID, PageValue>.Type
  ) -> PaginatedRefetchProgress<PageID, PageValue>? {
    self.progress.withLock { $0 as? PaginatedRefetchProgress<PageID, PageValue> }
  }

  /// Saves the progress of a refetch whose current page failed.
  func save<PageID, PageValue>(_ progress: PaginatedRefetchProgress<PageID, PageValue>) {
    self.progress.withLock { $0 = progress }
  }

  /// Forgets the progress once the refetch has finished, so that no list outlives it here.
  func clear() {
    self.progress.withLock { $0 = nil }
  }
}

/// How far a refetch of every page got.
struct PaginatedRefetchProgress<PageID: Hashable & Sendable, PageValue: Sendable>: Sendable {
  /// How many pages the list had when the refetch started.
  let targetCount: Int

  /// The identifier of the first page to refetch.
  let firstPageId: PageID

  /// The pages refetched so far, in order.
  var fetched: Pages<PageID, PageValue>
}

extension OperationContext {
  /// The progress of the refetch of every page that this task runs; set when the task is
  /// scheduled.
  var paginatedRefetchTracker: PaginatedRefetchTracker? {
    get { self[PaginatedRefetchTrackerKey.self] }
    set { self[PaginatedRefetchTrackerKey.self] = newValue }
  }

  private enum PaginatedRefetchTrackerKey: Key {
    static let defaultValue: PaginatedRefetchTracker? = nil
  }
}

// MARK: - Paging

extension OperationContext {
  /// What a run of `request` fetches now: derived from the running store's state and this
  /// context's fetch type, or the initial page of an empty list outside a paginated store.
  @usableFromInline
  func paging<Request: PaginatedRequest>(
    for request: Request
  ) -> Paging<Request.PageID, Request.PageValue> {
    // NB: The state is cast to the plain protocol, whose conformance the runtime caches, and its
    // pages to the request's types. A cast to `any _PaginatedStateProtocol<PageID, PageValue>`
    // demangles the existential's constraints on every run: 20,000 instructions a page.
    guard let store = self.runningOperationStore, store.isPaginated,
      let state = store.state.base as? any _PaginatedStateProtocol,
      let paging = state.paging(for: request, in: self)
    else {
      return Paging(pageId: request.initialPageId, pages: [], request: .initialPage)
    }
    return paging
  }

  /// The paging request of a run in a paginated store, erased; `nil` outside one.
  ///
  /// ``OperationRequest/deduplicated()`` treats two runs as duplicates only when these are equal.
  var runningPagingRequest: (any Hashable & Sendable)? {
    // NB: Reading the state copies it, so stores of other kinds are ruled out first.
    guard let store = self.runningOperationStore, store.isPaginated,
      let state = store.state.base as? any _PaginatedStateProtocol
    else { return nil }
    return state.erasedPagingRequest(in: self)
  }
}

extension _PaginatedStateProtocol {
  /// What a run of `request` fetches, given this state; `nil` when the state's pages are not the
  /// request's.
  fileprivate func paging<Request: PaginatedRequest>(
    for request: Request,
    in context: OperationContext
  ) -> Paging<Request.PageID, Request.PageValue>? {
    // NB: Through `Any`: the compiler warns that a cast between two specializations of one
    // generic type always fails, though at run time the state's page types are the request's.
    guard let pages = self._currentPages as Any as? Pages<Request.PageID, Request.PageValue>,
      let pagingRequest = self.pagingRequest(in: context) as? PagingRequest<Request.PageID>
    else { return nil }
    let pageId =
      switch pagingRequest {
      case .initialPage: request.initialPageId
      case .nextPage(let id), .previousPage(let id): id
      case .allPages: pages.first?.id ?? request.initialPageId
      }
    return Paging(pageId: pageId, pages: pages, request: pagingRequest)
  }

  fileprivate func erasedPagingRequest(in context: OperationContext) -> any Hashable & Sendable {
    self.pagingRequest(in: context)
  }
}
