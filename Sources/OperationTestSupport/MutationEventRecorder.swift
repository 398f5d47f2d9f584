public import OperationCore
import OperationSynchronization

/// Records the events that a mutation's store delivers to a subscription or a run handler, with
/// the arguments of each attempt.
///
/// Pass ``eventHandler()`` to `subscribe(with:)`, `mutate(with:handler:)` or
/// `retryLatest(handler:)`, then compare ``events`` with the sequence you expect:
///
/// ```swift
/// let recorder = MutationEventRecorder<MutationState<String, Int, any Error>>()
/// try await store.mutate(with: "hello", handler: recorder.eventHandler())
/// #expect(
///   recorder.events == [
///     .stateChanged,
///     .mutatingStarted("hello"),
///     .mutationResultReceived("hello", .success(5)),
///     .mutatingEnded("hello"),
///     .stateChanged,
///   ]
/// )
/// ```
///
/// The recorder is `Sendable` and records from any thread, in the order the store delivers.
public final class MutationEventRecorder<State: _MutationStateProtocol & Sendable>: Sendable {
  /// One event delivered by a mutation's store.
  public enum Event: Sendable {
    /// The state changed; the new state is the matching element of ``states``.
    case stateChanged

    /// An attempt with these arguments started.
    case mutatingStarted(State.Arguments)

    /// An attempt with these arguments yielded or returned a result.
    case mutationResultReceived(State.Arguments, Result<State.Value, any Error>)

    /// An attempt with these arguments ended.
    case mutatingEnded(State.Arguments)
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

  /// A handler that records every event it receives.
  ///
  /// - Returns: A handler for a mutation store's `subscribe(with:)`, `mutate(with:handler:)` or
  ///   `retryLatest(handler:)`.
  public func eventHandler() -> MutationEventHandler<State> {
    MutationEventHandler(
      onStateChanged: { state, context in
        self.storage.withLock { storage in
          storage.events.append(.stateChanged)
          storage.states.append(state)
          storage.contexts.append(context)
        }
      },
      onMutatingStarted: { arguments, context in
        self.record(.mutatingStarted(arguments), context)
      },
      onMutationResultReceived: { arguments, result, context in
        self.record(.mutationResultReceived(arguments, result.mapError { $0 }), context)
      },
      onMutatingEnded: { arguments, context in
        self.record(.mutatingEnded(arguments), context)
      }
    )
  }

  private func record(_ event: Event, _ context: OperationContext) {
    self.storage.withLock { storage in
      storage.events.append(event)
      storage.contexts.append(context)
    }
  }
}

extension MutationEventRecorder.Event: Equatable
where State.Arguments: Equatable, State.Value: Equatable {
  /// Whether two events are the same; failures are equal when they describe themselves alike.
  ///
  /// Errors are not `Equatable`, so two ``mutationResultReceived(_:_:)`` failures compare by
  /// `String(describing:)`.
  ///
  /// - Parameters:
  ///   - lhs: An event.
  ///   - rhs: Another event.
  /// - Returns: `true` when the events are the same.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case (.stateChanged, .stateChanged):
      true
    case (.mutatingStarted(let lhs), .mutatingStarted(let rhs)),
      (.mutatingEnded(let lhs), .mutatingEnded(let rhs)):
      lhs == rhs
    case (
      .mutationResultReceived(let lhsArguments, .success(let lhs)),
      .mutationResultReceived(let rhsArguments, .success(let rhs))
    ):
      lhsArguments == rhsArguments && lhs == rhs
    case (
      .mutationResultReceived(let lhsArguments, .failure(let lhs)),
      .mutationResultReceived(let rhsArguments, .failure(let rhs))
    ):
      lhsArguments == rhsArguments && String(describing: lhs) == String(describing: rhs)
    default:
      false
    }
  }
}
