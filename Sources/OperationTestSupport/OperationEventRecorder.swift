public import OperationCore
import OperationSynchronization

/// Records the events that a store delivers to a subscription or a run handler.
///
/// Pass ``eventHandler()`` (or ``queryEventHandler()`` for a query store) to `subscribe(with:)`,
/// `run(handler:)` or `fetch(handler:)`, then compare ``events`` with the sequence you expect:
///
/// ```swift
/// let recorder = OperationEventRecorder<QueryState<Int, any Error>>()
/// try await store.fetch(handler: recorder.queryEventHandler())
/// #expect(
///   recorder.events == [
///     .stateChanged, .runStarted, .resultReceived(.success(1)), .runEnded, .stateChanged,
///   ]
/// )
/// ```
///
/// The recorder is `Sendable` and records from any thread, in the order the store delivers.
public final class OperationEventRecorder<State: OperationState & Sendable>: Sendable {
  /// One event delivered by a store.
  public enum Event: Sendable {
    /// The state changed; the new state is the matching element of ``states``.
    case stateChanged

    /// A run started.
    case runStarted

    /// A run ended.
    case runEnded

    /// A run yielded or returned a result.
    case resultReceived(Result<State.OperationValue, any Error>)
  }

  private struct Storage: Sendable {
    var events = [Event]()
    var states = [State]()
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

  /// Forgets every event and state recorded so far.
  public func reset() {
    self.storage.withLock { $0 = Storage() }
  }

  /// A handler that records every event it receives.
  ///
  /// - Returns: A handler for `subscribe(with:)` or `run(handler:)`.
  public func eventHandler() -> OperationEventHandler<State> {
    OperationEventHandler(
      onStateChanged: { state, _ in self.recordStateChange(state) },
      onRunStarted: { _ in self.record(.runStarted) },
      onRunEnded: { _ in self.record(.runEnded) },
      onResultReceived: { result, _ in self.record(.resultReceived(result.mapError { $0 })) }
    )
  }

  /// A query handler that records every event it receives; fetching maps to running.
  ///
  /// - Returns: A handler for a query store's `subscribe(with:)` or `fetch(handler:)`.
  public func queryEventHandler() -> QueryEventHandler<State> where State: _QueryStateProtocol {
    QueryEventHandler(
      onStateChanged: { state, _ in self.recordStateChange(state) },
      onFetchingStarted: { _ in self.record(.runStarted) },
      onFetchingEnded: { _ in self.record(.runEnded) },
      onResultReceived: { result, _ in self.record(.resultReceived(result.mapError { $0 })) }
    )
  }

  private func record(_ event: Event) {
    self.storage.withLock { $0.events.append(event) }
  }

  private func recordStateChange(_ state: State) {
    self.storage.withLock { storage in
      storage.events.append(.stateChanged)
      storage.states.append(state)
    }
  }
}

extension OperationEventRecorder.Event: Equatable where State.OperationValue: Equatable {
  /// Whether two events are the same; failures are equal when they describe themselves alike.
  ///
  /// Errors are not `Equatable`, so two ``resultReceived(_:)`` failures compare by
  /// `String(describing:)`.
  ///
  /// - Parameters:
  ///   - lhs: An event.
  ///   - rhs: Another event.
  /// - Returns: `true` when the events are the same.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case (.stateChanged, .stateChanged), (.runStarted, .runStarted), (.runEnded, .runEnded):
      true
    case (.resultReceived(.success(let lhs)), .resultReceived(.success(let rhs))):
      lhs == rhs
    case (.resultReceived(.failure(let lhs)), .resultReceived(.failure(let rhs))):
      String(describing: lhs) == String(describing: rhs)
    default:
      false
    }
  }
}
