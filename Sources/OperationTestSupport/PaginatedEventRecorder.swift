public import IdentifiedCollections
public import OperationCore
import OperationSynchronization

/// Records the events that a paginated request's store delivers, page events included.
///
/// Pass ``eventHandler()`` to `subscribe(with:)`, `fetchNextPage(handler:)`,
/// `fetchPreviousPage(handler:)` or `refetchAllPages(handler:)`, then compare ``events`` with the
/// sequence you expect:
///
/// ```swift
/// let recorder = PaginatedEventRecorder<PaginatedState<Int, String, any Error>>()
/// try await store.fetchNextPage(handler: recorder.eventHandler())
/// #expect(
///   recorder.events == [
///     .stateChanged, .fetchingStarted, .pageFetchingStarted(0),
///     .pageResultReceived(0, .success(Page(id: 0, value: "a"))), .pageFetchingEnded(0),
///     .resultReceived(.success([Page(id: 0, value: "a")])), .fetchingEnded, .stateChanged,
///   ]
/// )
/// ```
///
/// The recorder is `Sendable` and records from any thread, in the order the store delivers.
public final class PaginatedEventRecorder<State: _PaginatedStateProtocol & Sendable>: Sendable {
  /// One event delivered by a paginated store.
  public enum Event: Sendable {
    /// The state changed; the new state is the matching element of ``states``.
    case stateChanged

    /// A fetch started.
    case fetchingStarted

    /// The fetch of a page started.
    case pageFetchingStarted(State.PageID)

    /// A page yielded or returned a result.
    case pageResultReceived(State.PageID, Result<Page<State.PageID, State.PageValue>, any Error>)

    /// The fetch of a page ended.
    case pageFetchingEnded(State.PageID)

    /// A fetch returned, with the resulting list of pages.
    case resultReceived(Result<Pages<State.PageID, State.PageValue>, any Error>)

    /// A fetch ended.
    case fetchingEnded
  }

  private struct Storage: Sendable {
    var events = [Event]()
    var states = [State]()
    var contexts = [OperationContext]()
  }

  private let storage = Lock(Storage())

  /// Creates a recorder that has recorded nothing.
  public init() {}

  /// Every event recorded so far, in the order of delivery.
  public var events: [Event] {
    self.storage.withLock { $0.events }
  }

  /// The state delivered with every ``Event/stateChanged`` event, in the order of delivery.
  public var states: [State] {
    self.storage.withLock { $0.states }
  }

  /// The context delivered with every event, in the order of delivery.
  public var contexts: [OperationContext] {
    self.storage.withLock { $0.contexts }
  }

  /// Forgets every event, state and context recorded so far.
  public func reset() {
    self.storage.withLock { $0 = Storage() }
  }

  /// A handler that records every event it receives.
  ///
  /// - Returns: A handler for a paginated store's `subscribe(with:)` or page methods.
  public func eventHandler() -> PaginatedEventHandler<State> {
    PaginatedEventHandler(
      onStateChanged: { state, context in
        self.storage.withLock { storage in
          storage.events.append(.stateChanged)
          storage.states.append(state)
          storage.contexts.append(context)
        }
      },
      onFetchingStarted: { self.record(.fetchingStarted, $0) },
      onPageFetchingStarted: { self.record(.pageFetchingStarted($0), $1) },
      onPageResultReceived: { self.record(.pageResultReceived($0, $1.mapError { $0 }), $2) },
      onResultReceived: { self.record(.resultReceived($0.mapError { $0 }), $1) },
      onPageFetchingEnded: { self.record(.pageFetchingEnded($0), $1) },
      onFetchingEnded: { self.record(.fetchingEnded, $0) }
    )
  }

  private func record(_ event: Event, _ context: OperationContext) {
    self.storage.withLock { storage in
      storage.events.append(event)
      storage.contexts.append(context)
    }
  }
}

extension PaginatedEventRecorder.Event: Equatable where State.PageValue: Equatable {
  /// Whether two events are the same; failures are equal when they describe themselves alike.
  ///
  /// Errors are not `Equatable`, so two failures compare by `String(describing:)`.
  ///
  /// - Parameters:
  ///   - lhs: An event.
  ///   - rhs: Another event.
  /// - Returns: `true` when the events are the same.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case (.stateChanged, .stateChanged), (.fetchingStarted, .fetchingStarted),
      (.fetchingEnded, .fetchingEnded):
      true
    case (.pageFetchingStarted(let lhs), .pageFetchingStarted(let rhs)),
      (.pageFetchingEnded(let lhs), .pageFetchingEnded(let rhs)):
      lhs == rhs
    case (.pageResultReceived(let lhsID, let lhs), .pageResultReceived(let rhsID, let rhs)):
      lhsID == rhsID && Self.isSame(lhs, rhs)
    case (.resultReceived(let lhs), .resultReceived(let rhs)):
      Self.isSame(lhs, rhs)
    default:
      false
    }
  }

  private static func isSame<Value: Equatable>(
    _ lhs: Result<Value, any Error>,
    _ rhs: Result<Value, any Error>
  ) -> Bool {
    switch (lhs, rhs) {
    case (.success(let lhs), .success(let rhs)): lhs == rhs
    case (.failure(let lhs), .failure(let rhs)):
      String(describing: lhs) == String(describing: rhs)
    default: false
    }
  }
}
