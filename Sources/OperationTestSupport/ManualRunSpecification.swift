public import OperationCore
import OperationSynchronization

/// A run specification that a test satisfies or unsatisfies by hand.
///
/// ```swift
/// let isLoggedIn = ManualRunSpecification(isSatisfied: false)
/// let store = client.store(for: ProfileQuery().rerunOnChange(of: isLoggedIn))
/// isLoggedIn.send(true)  // Subscribed, stale stores rerun now.
/// ```
///
/// Every ``send(_:)`` notifies the subscribers synchronously, on the caller's thread, even when
/// the value did not change, so a test can also check how a consumer treats repeated values.
public final class ManualRunSpecification: OperationRunSpecification, Sendable {
  private struct State {
    var isSatisfied: Bool
    var subscribers = [Int: @Sendable () -> Void]()
    var nextID = 0
  }

  private let state: Lock<State>

  /// Creates a specification.
  ///
  /// - Parameter isSatisfied: Whether it starts satisfied.
  public init(isSatisfied: Bool = false) {
    self.state = Lock(State(isSatisfied: isSatisfied))
  }

  /// The number of active subscriptions.
  public var subscriberCount: Int {
    self.state.withLock { $0.subscribers.count }
  }

  /// Sets whether the specification is satisfied and notifies every subscriber.
  ///
  /// - Parameter isSatisfied: The new value.
  public func send(_ isSatisfied: Bool) {
    let subscribers = self.state.withLock { state in
      state.isSatisfied = isSatisfied
      return Array(state.subscribers.values)
    }
    for onChange in subscribers {
      onChange()
    }
  }

  /// Whether the specification is satisfied; the context is not consulted.
  ///
  /// - Parameter context: Ignored.
  /// - Returns: The value last sent, or the initial one.
  public func isSatisfied(in context: OperationContext) -> Bool {
    self.state.withLock { $0.isSatisfied }
  }

  /// Calls `onChange` on every ``send(_:)`` until the subscription is cancelled.
  ///
  /// - Parameters:
  ///   - context: Ignored.
  ///   - onChange: Called after each change.
  /// - Returns: The subscription.
  public func subscribe(
    in context: OperationContext,
    onChange: @escaping @Sendable () -> Void
  ) -> OperationSubscription {
    let id = self.state.withLock { state in
      defer { state.nextID += 1 }
      state.subscribers[state.nextID] = onChange
      return state.nextID
    }
    return OperationSubscription { [weak self] in
      _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
    }
  }
}
