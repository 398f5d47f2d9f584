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
  public var currentValue: Pages<PageID, PageValue> {
    self.pages
  }

  /// The pages the state started with.
  public let initialValue: Pages<PageID, PageValue>

  /// How many times the pages were updated.
  public var valueUpdateCount: Int {
    self.updates.valueCount
  }

  /// When the pages were last updated.
  public var valueLastUpdatedAt: Date? {
    self.updates.valueDate
  }

  /// The last error, cleared by the next success.
  public var error: Failure? {
    self.lastError
  }

  /// How many times an error was received.
  public var errorUpdateCount: Int {
    self.updates.errorCount
  }

  /// When an error was last received.
  public var errorLastUpdatedAt: Date? {
    self.updates.errorDate
  }

  /// The identifier of the page after the last page, or `nil` when there is none or no fetch has
  /// computed it yet.
  public var nextPageId: PageID? {
    self.nextId
  }

  /// The identifier of the page before the first page, or `nil` when there is none or no fetch
  /// has computed it yet.
  public var previousPageId: PageID? {
    self.previousId
  }

  /// The refetches of every page that are scheduled or running.
  public var allPagesActiveTasks: ActiveTasks {
    self.allPagesTasks
  }

  /// The fetches of the initial page that are scheduled or running.
  public var initialPageActiveTasks: ActiveTasks {
    self.initialPageTasks
  }

  /// The fetches of the next page that are scheduled or running.
  public var nextPageActiveTasks: ActiveTasks {
    self.nextPageTasks
  }

  /// The fetches of the previous page that are scheduled or running.
  public var previousPageActiveTasks: ActiveTasks {
    self.previousPageTasks
  }

  /// Creates a state.
  ///
  /// - Parameters:
  ///   - initialValue: The pages to start with.
  ///   - initialPageId: The identifier of the first page to fetch.
  // NB: The storage below is `@usableFromInline` so that the store's inlinable run path (see
  // `OperationStore.run`) specializes the state's bookkeeping for the caller's types, as
  // `MutationState`'s is.

  /// The storage of ``currentValue``.
  @usableFromInline var pages: Pages<PageID, PageValue>

  /// The storage of the counters and dates.
  @usableFromInline var updates = StateUpdateCounts()

  /// The storage of ``error``.
  @usableFromInline var lastError: Failure?

  /// The storage of ``nextPageId``.
  @usableFromInline var nextId: PageID?

  /// The storage of ``previousPageId``.
  @usableFromInline var previousId: PageID?

  /// The storage of the active tasks of each kind.
  @usableFromInline var allPagesTasks = ActiveTasks()
  @usableFromInline var initialPageTasks = ActiveTasks()
  @usableFromInline var nextPageTasks = ActiveTasks()
  @usableFromInline var previousPageTasks = ActiveTasks()

  /// The fetches of one kind that are scheduled or running, oldest first.
  public typealias ActiveTasks = IdentifiedArrayOf<
    OperationTask<PaginatedOperationValue<PageID, PageValue>, Failure>
  >

  public init(initialValue: Pages<PageID, PageValue>, initialPageId: PageID) {
    self.pages = initialValue
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
  @inlinable
  public mutating func scheduleFetchTask(
    _ task: inout OperationTask<PaginatedOperationValue<PageID, PageValue>, Failure>
  ) {
    switch self.pagingRequest(in: task.context) {
    case .allPages:
      self.scheduleRefetch(&task)
    case .initialPage:
      self.initialPageTasks.append(task)
    case .nextPage:
      task.schedule(after: self.initialPageTasks)
      task.schedule(after: self.allPagesTasks)
      self.nextPageTasks.append(task)
    case .previousPage:
      task.schedule(after: self.initialPageTasks)
      task.schedule(after: self.allPagesTasks)
      self.previousPageTasks.append(task)
    }
  }

  /// Files a refetch of every page; see ``scheduleFetchTask(_:)``.
  @usableFromInline
  mutating func scheduleRefetch(
    _ task: inout OperationTask<PaginatedOperationValue<PageID, PageValue>, Failure>
  ) {
    task.schedule(after: self.initialPageTasks)
    task.schedule(after: self.nextPageTasks)
    task.schedule(after: self.previousPageTasks)
    task.context.paginatedRefetchTracker = PaginatedRefetchTracker()
    self.allPagesTasks.append(task)
  }

  /// Restores the initial pages and clears the identifiers, the error, the counters and the dates.
  ///
  /// - Parameter context: The context of the reset.
  /// - Returns: An effect that cancels every fetch that was active.
  public mutating func reset(using context: OperationContext) -> ResetEffect {
    let tasks =
      self.initialPageTasks.elements + self.nextPageTasks.elements
      + self.previousPageTasks.elements + self.allPagesTasks.elements
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
      self.pages = pages
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
  @inlinable
  public mutating func update(
    with result: Result<PaginatedOperationValue<PageID, PageValue>, Failure>,
    for task: OperationTask<PaginatedOperationValue<PageID, PageValue>, Failure>
  ) {
    switch result {
    case .success(let value):
      // NB: Merge into the stored list itself, not into a copy that is assigned back: while the
      // store's storage holds the only reference, adding a page then does not copy the list.
      self.pages.merge(
        value.runValue,
        replacingOnInitialPage: task.context.paginatedFetchType == nil
      )
      if case .computed(let id) = value.nextPageId {
        self.nextId = id
      }
      if case .computed(let id) = value.previousPageId {
        self.previousId = id
      }
      self.recordValueUpdate(in: task.context)
    case .failure(let error):
      self.recordError(error, in: task.context)
    }
  }

  /// Removes a finished fetch from its list.
  ///
  /// - Parameter task: The fetch.
  @inlinable
  public mutating func finishFetchTask(
    _ task: OperationTask<PaginatedOperationValue<PageID, PageValue>, Failure>
  ) {
    self.allPagesTasks.remove(id: task.id)
    self.initialPageTasks.remove(id: task.id)
    self.nextPageTasks.remove(id: task.id)
    self.previousPageTasks.remove(id: task.id)
  }

  @inlinable
  mutating func recordValueUpdate(in context: OperationContext) {
    self.updates.record(isSuccess: true, at: context.operationClock.now())
    self.lastError = nil
  }

  @inlinable
  mutating func recordError(_ error: Failure, in context: OperationContext) {
    self.lastError = error
    self.updates.record(isSuccess: false, at: context.operationClock.now())
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
