public import IdentifiedCollections

/// Callbacks for the events of a paginated request's store, including the events of each page.
///
/// Every callback is optional. For a fetch of one page, the callbacks come in this order:
///
/// 1. `onStateChanged` (the fetch is scheduled),
/// 2. `onFetchingStarted`,
/// 3. `onPageFetchingStarted`,
/// 4. `onPageResultReceived`, once per yielded result (each followed by `onStateChanged`) and
///    once for the page's final result,
/// 5. `onPageFetchingEnded`,
/// 6. `onResultReceived` with the whole resulting list,
/// 7. `onFetchingEnded`,
/// 8. `onStateChanged`.
///
/// A refetch of every page repeats steps 3 to 5 for each page.
///
/// ```swift
/// let subscription = store.subscribe(
///   with: PaginatedEventHandler(
///     onPageResultReceived: { id, result, _ in print("Page \(id): \(result)") }
///   )
/// )
/// ```
public struct PaginatedEventHandler<State: _PaginatedStateProtocol>: Sendable {
  /// Called with the state after each change, and once with the current state on subscribe.
  public var onStateChanged: (@Sendable (State, OperationContext) -> Void)?

  /// Called when a fetch starts.
  public var onFetchingStarted: (@Sendable (OperationContext) -> Void)?

  /// Called when the fetch of a page starts.
  public var onPageFetchingStarted: (@Sendable (State.PageID, OperationContext) -> Void)?

  /// Called for each yielded result of a page and for its final result, before the state
  /// changes; the context's ``OperationContext/operationResultUpdateReason`` says which.
  public var onPageResultReceived:
    (
      @Sendable (
        State.PageID,
        Result<Page<State.PageID, State.PageValue>, State.Failure>,
        OperationContext
      ) -> Void
    )?

  /// Called with the final result of a fetch: the whole list of pages that results from it, or
  /// the error. Yielded results do not call it.
  public var onResultReceived:
    (
      @Sendable (
        Result<Pages<State.PageID, State.PageValue>, State.Failure>,
        OperationContext
      ) -> Void
    )?

  /// Called when the fetch of a page ends.
  public var onPageFetchingEnded: (@Sendable (State.PageID, OperationContext) -> Void)?

  /// Called when a fetch ends, before the state changes.
  public var onFetchingEnded: (@Sendable (OperationContext) -> Void)?

  /// Creates a handler.
  ///
  /// - Parameters:
  ///   - onStateChanged: Called with the state after each change.
  ///   - onFetchingStarted: Called when a fetch starts.
  ///   - onPageFetchingStarted: Called when the fetch of a page starts.
  ///   - onPageResultReceived: Called for each result of a page.
  ///   - onResultReceived: Called with the final result of a fetch.
  ///   - onPageFetchingEnded: Called when the fetch of a page ends.
  ///   - onFetchingEnded: Called when a fetch ends.
  public init(
    onStateChanged: (@Sendable (State, OperationContext) -> Void)? = nil,
    onFetchingStarted: (@Sendable (OperationContext) -> Void)? = nil,
    onPageFetchingStarted: (@Sendable (State.PageID, OperationContext) -> Void)? = nil,
    onPageResultReceived: (
      @Sendable (
        State.PageID,
        Result<Page<State.PageID, State.PageValue>, State.Failure>,
        OperationContext
      ) -> Void
    )? = nil,
    onResultReceived: (
      @Sendable (
        Result<Pages<State.PageID, State.PageValue>, State.Failure>,
        OperationContext
      ) -> Void
    )? = nil,
    onPageFetchingEnded: (@Sendable (State.PageID, OperationContext) -> Void)? = nil,
    onFetchingEnded: (@Sendable (OperationContext) -> Void)? = nil
  ) {
    self.onStateChanged = onStateChanged
    self.onFetchingStarted = onFetchingStarted
    self.onPageFetchingStarted = onPageFetchingStarted
    self.onPageResultReceived = onPageResultReceived
    self.onResultReceived = onResultReceived
    self.onPageFetchingEnded = onPageFetchingEnded
    self.onFetchingEnded = onFetchingEnded
  }
}

// MARK: - Operation events

extension PaginatedEventHandler {
  /// The same callbacks as an ``OperationEventHandler``.
  ///
  /// - Parameter resultingPages: The list that a final value results in.
  /// - Returns: A handler that calls this handler's callbacks, page events included.
  func operationEventHandler(
    resultingPages:
      @escaping @Sendable (PaginatedOperationValue<State.PageID, State.PageValue>, OperationContext)
      -> Pages<State.PageID, State.PageValue>
  ) -> OperationEventHandler<State> {
    var onResult:
      (@Sendable (Result<State.OperationValue, State.Failure>, OperationContext) -> Void)?
    if let onResultReceived = self.onResultReceived {
      onResult = { result, context in
        guard context.operationResultUpdateReason == .returnedFinalResult else { return }
        switch result {
        case .success(let value):
          onResultReceived(.success(resultingPages(value, context)), context)
        case .failure(let error):
          onResultReceived(.failure(error), context)
        }
      }
    }
    var handler = OperationEventHandler<State>(
      onStateChanged: self.onStateChanged,
      onRunStarted: self.onFetchingStarted,
      onRunEnded: self.onFetchingEnded,
      onResultReceived: onResult
    )
    handler.onOperationEvent = self.onPageEvent
    return handler
  }

  private var onPageEvent: (@Sendable (any Sendable, OperationContext) -> Void)? {
    let onStarted = self.onPageFetchingStarted
    let onResult = self.onPageResultReceived
    let onEnded = self.onPageFetchingEnded
    guard onStarted != nil || onResult != nil || onEnded != nil else { return nil }
    return { event, context in
      guard
        let event = event as? PaginatedPageEvent<State.PageID, State.PageValue, State.Failure>
      else { return }
      switch event {
      case .started(let id): onStarted?(id, context)
      case .resultReceived(let id, let result): onResult?(id, result, context)
      case .ended(let id): onEnded?(id, context)
      }
    }
  }
}

/// An event of one page of a paginated request, sent through
/// ``OperationContext/operationEventSink``.
@usableFromInline
enum PaginatedPageEvent<PageID: Hashable & Sendable, PageValue: Sendable, Failure: Error>:
  Sendable
{
  case started(PageID)
  case resultReceived(PageID, Result<Page<PageID, PageValue>, Failure>)
  case ended(PageID)
}
