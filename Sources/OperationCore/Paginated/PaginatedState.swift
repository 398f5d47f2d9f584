public import IdentifiedCollections

#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// The state of a paginated request: its pages, the identifiers of their neighbours, the last
/// error, and the fetches in flight by kind.
///
/// A store merges each result into ``currentValue`` in place:
///
/// - a refetch of every page replaces the list (its yields show the pages refetched so far);
/// - the initial page, fetched through a next- or previous-page call on an empty list, replaces
///   the page with its identifier or goes at the end; fetched by a plain `run()`, it replaces the
///   whole list;
/// - the next page goes after the page it was fetched after, the previous page before the page it
///   was fetched before.
///
/// Each fetch records the identifiers of the pages around the result in ``nextPageId`` and
/// ``previousPageId``.
///
/// Scheduling: a refetch of every page waits for the fetches of the initial, next and previous
/// pages in flight; fetches of the next and previous pages wait for the fetches of the initial
/// page and the refetches in flight, and run alongside each other.
///
/// > Warning: Do not call the `mutating` methods yourself; the store calls them.
public struct PaginatedState<PageID: Hashable & Sendable, PageValue: Sendable, Failure: Error>:
  Sendable
{
  /// The identifier of the first page a store fetches.
  public let initialPageId: PageID

  /// The pages fetched so far, in order.
  public private(set) var currentValue: Pages<PageID, PageValue>

  /// The pages the state started with.
  public let initialValue: Pages<PageID, PageValue>

  /// How many times the pages were updated.
  public private(set) var valueUpdateCount = 0

  /// When the pages were last updated.
  public private(set) var valueLastUpdatedAt: Date?

  /// The last error, cleared by the next success.
  public private(set) var error: Failure?

  /// How many times an error was received.
  public private(set) var errorUpdateCount = 0

  /// When an error was last received.
  public private(set) var errorLastUpdatedAt: Date?

  /// The identifier of the page after the last page, or `nil` when there is none or no fetch has
  /// computed it yet.
  public private(set) var nextPageId: PageID?

  /// The identifier of the page before the first page, or `nil` when there is none or no fetch
  /// has computed it yet.
  public private(set) var previousPageId: PageID?

  /// The refetches of every page that are scheduled or running.
  public private(set) var allPagesActiveTasks = IdentifiedArrayOf<
    OperationTask<PaginatedOperationValue<PageID, PageValue>, Failure>
  >()

  /// The fetches of the initial page that are scheduled or running.
  public private(set) var initialPageActiveTasks = IdentifiedArrayOf<
    OperationTask<PaginatedOperationValue<PageID, PageValue>, Failure>
  >()

  /// The fetches of the next page that are scheduled or running.
  public private(set) var nextPageActiveTasks = IdentifiedArrayOf<
    OperationTask<PaginatedOperationValue<PageID, PageValue>, Failure>
  >()

  /// The fetches of the previous page that are scheduled or running.
  public private(set) var previousPageActiveTasks = IdentifiedArrayOf<
    OperationTask<PaginatedOperationValue<PageID, PageValue>, Failure>
  >()

  /// Creates a state.
  ///
  /// - Parameters:
  ///   - initialValue: The pages to start with.
  ///   - initialPageId: The identifier of the first page to fetch.
  public init(initialValue: Pages<PageID, PageValue>, initialPageId: PageID) {
    self.currentValue = initialValue
    self.initialValue = initialValue
    self.initialPageId = initialPageId
  }
}

// MARK: - OperationState

extension PaginatedState: _PaginatedStateProtocol {
  /// The type of value observers see: the pages.
  public typealias StateValue = Pages<PageID, PageValue>
  /// The type of value a fetch returns.
  public typealias OperationValue = PaginatedOperationValue<PageID, PageValue>
  /// The type of value of a successful status: the pages.
  public typealias StatusValue = Pages<PageID, PageValue>

  /// Whether any fetch is scheduled or running.
  public var isLoading: Bool {
    self.isLoadingAllPages || self.isLoadingInitialPage || self.isLoadingNextPage
      || self.isLoadingPreviousPage
  }

  /// Files a fetch under its kind and makes it wait for the fetches it must follow.
  ///
  /// - Parameter task: The fetch; a refetch of every page also gets a record of its progress, so
  ///   that a retry resumes after the pages that succeeded.
  public mutating func scheduleFetchTask(
    _ task: inout OperationTask<PaginatedOperationValue<PageID, PageValue>, Failure>
  ) {
    switch self.pagingRequest(in: task.context) {
    case .allPages:
      task.schedule(after: self.initialPageActiveTasks)
      task.schedule(after: self.nextPageActiveTasks)
      task.schedule(after: self.previousPageActiveTasks)
      task.context.paginatedRefetchTracker = PaginatedRefetchTracker()
      self.allPagesActiveTasks.append(task)
    case .initialPage:
      self.initialPageActiveTasks.append(task)
    case .nextPage:
      task.schedule(after: self.initialPageActiveTasks)
      task.schedule(after: self.allPagesActiveTasks)
      self.nextPageActiveTasks.append(task)
    case .previousPage:
      task.schedule(after: self.initialPageActiveTasks)
      task.schedule(after: self.allPagesActiveTasks)
      self.previousPageActiveTasks.append(task)
    }
  }

  /// Restores the initial pages and clears the identifiers, the error, the counters and the dates.
  ///
  /// - Parameter context: The context of the reset.
  /// - Returns: An effect that cancels every fetch that was active.
  public mutating func reset(using context: OperationContext) -> ResetEffect {
    let tasks =
      self.initialPageActiveTasks.elements + self.nextPageActiveTasks.elements
      + self.previousPageActiveTasks.elements + self.allPagesActiveTasks.elements
    self = PaginatedState(initialValue: self.initialValue, initialPageId: self.initialPageId)
    return ResetEffect(tasksToCancel: tasks)
  }

  /// Records pages or an error set directly on the store, time-stamped by the context's clock.
  ///
  /// Pages replace ``currentValue`` and clear ``error``; the neighbouring identifiers stay.
  ///
  /// - Parameters:
  ///   - result: The pages or error.
  ///   - context: The context of the update.
  public mutating func update(
    with result: Result<Pages<PageID, PageValue>, Failure>,
    using context: OperationContext
  ) {
    switch result {
    case .success(let pages):
      self.currentValue = pages
      self.recordValueUpdate(in: context)
    case .failure(let error):
      self.recordError(error, in: context)
    }
  }

  /// Merges a result of a fetch into ``currentValue``, in place, time-stamped by the clock of the
  /// task's context.
  ///
  /// - Parameters:
  ///   - result: The fetched page or pages, or the error.
  ///   - task: The fetch that produced the result.
  public mutating func update(
    with result: Result<PaginatedOperationValue<PageID, PageValue>, Failure>,
    for task: OperationTask<PaginatedOperationValue<PageID, PageValue>, Failure>
  ) {
    switch result {
    case .success(let value):
      // NB: Merge into the stored list itself, not into a copy that is assigned back: while the
      // store's storage holds the only reference, adding a page then does not copy the list.
      self.currentValue.merge(
        value.runValue,
        replacingOnInitialPage: task.context.paginatedFetchType == nil
      )
      if case .computed(let id) = value.nextPageId {
        self.nextPageId = id
      }
      if case .computed(let id) = value.previousPageId {
        self.previousPageId = id
      }
      self.recordValueUpdate(in: task.context)
    case .failure(let error):
      self.recordError(error, in: task.context)
    }
  }

  /// Removes a finished fetch from its list.
  ///
  /// - Parameter task: The fetch.
  public mutating func finishFetchTask(
    _ task: OperationTask<PaginatedOperationValue<PageID, PageValue>, Failure>
  ) {
    self.allPagesActiveTasks.remove(id: task.id)
    self.initialPageActiveTasks.remove(id: task.id)
    self.nextPageActiveTasks.remove(id: task.id)
    self.previousPageActiveTasks.remove(id: task.id)
  }

  private mutating func recordValueUpdate(in context: OperationContext) {
    self.valueUpdateCount += 1
    self.valueLastUpdatedAt = context.operationClock.now()
    self.error = nil
  }

  private mutating func recordError(_ error: Failure, in context: OperationContext) {
    self.error = error
    self.errorUpdateCount += 1
    self.errorLastUpdatedAt = context.operationClock.now()
  }
}

// MARK: - DefaultableOperationState

extension PaginatedState: DefaultableOperationState {
  /// The type of value shown in place of pages that were never set: pages.
  public typealias DefaultStateValue = Pages<PageID, PageValue>

  /// The default pages until the pages are first updated, then the pages.
  ///
  /// - Parameter defaultValue: The default pages.
  /// - Returns: The pages to show.
  public func currentValue(using defaultValue: DefaultStateValue) -> DefaultStateValue {
    self.valueUpdateCount == 0 ? defaultValue : self.currentValue
  }
}

extension DefaultOperationState: _PaginatedStateProtocol
where Base: _PaginatedStateProtocol, Base.DefaultStateValue == Base.StateValue {
  /// The type that identifies a page of the base state.
  public typealias PageID = Base.PageID
  /// The type of value of a page of the base state.
  public typealias PageValue = Base.PageValue

  /// The identifier of the first page the base state fetches.
  public var initialPageId: Base.PageID { self.base.initialPageId }
  /// The base state's next page identifier.
  public var nextPageId: Base.PageID? { self.base.nextPageId }
  /// The base state's previous page identifier.
  public var previousPageId: Base.PageID? { self.base.previousPageId }

  /// The base state's refetches of every page.
  public var allPagesActiveTasks:
    IdentifiedArrayOf<OperationTask<Base.OperationValue, Base.Failure>>
  {
    self.base.allPagesActiveTasks
  }

  /// The base state's fetches of the initial page.
  public var initialPageActiveTasks:
    IdentifiedArrayOf<OperationTask<Base.OperationValue, Base.Failure>>
  {
    self.base.initialPageActiveTasks
  }

  /// The base state's fetches of the next page.
  public var nextPageActiveTasks:
    IdentifiedArrayOf<OperationTask<Base.OperationValue, Base.Failure>>
  {
    self.base.nextPageActiveTasks
  }

  /// The base state's fetches of the previous page.
  public var previousPageActiveTasks:
    IdentifiedArrayOf<OperationTask<Base.OperationValue, Base.Failure>>
  {
    self.base.previousPageActiveTasks
  }

  /// The base state's pages, not the default shown in their place: fetches build on them.
  public var _currentPages: Pages<Base.PageID, Base.PageValue> {
    self.base._currentPages
  }
}
