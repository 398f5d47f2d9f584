import OperationSynchronization

/// An application activity observer that your own lifecycle code drives.
///
/// Linux has no system-wide notion of a foreground application, so tell the observer yourself:
///
/// ```swift
/// let activity = ManualApplicationActivityObserver()
///
/// // In a server: stop background refreshes while draining, resume afterwards.
/// func drain() { activity.send(isActive: false) }
/// func resume() { activity.send(isActive: true) }
///
/// let spec = ApplicationIsActiveRunSpecification(observer: activity)
/// ```
///
/// Observation contract:
/// - ``subscribe(_:)`` calls the handler at once with ``isActive``.
/// - ``send(isActive:)`` stores the state, then calls every handler on the sending thread. It does
///   not deduplicate; ``ApplicationIsActiveRunSpecification`` does.
public final class ManualApplicationActivityObserver: ApplicationActivityObserver, Sendable {
  private let state: Lock<Bool>
  private let handlers = HandlerList<@Sendable (Bool) -> Void>()

  /// Creates an observer.
  ///
  /// - Parameter isActive: Whether the application starts active; `true` by default.
  public init(isActive: Bool = true) {
    self.state = Lock(isActive)
  }

  /// Whether the application is active, as last sent.
  public var isActive: Bool {
    self.state.withLock { $0 }
  }

  /// The number of live subscriptions.
  public var subscriberCount: Int {
    self.handlers.count
  }

  /// Stores whether the application is active and calls every subscriber with it.
  ///
  /// - Parameter isActive: Whether the application is active now.
  public func send(isActive: Bool) {
    self.state.withLock { $0 = isActive }
    for handler in self.handlers.handlers {
      handler(isActive)
    }
  }

  /// Calls `handler` at once with ``isActive``, then with every state sent.
  ///
  /// - Parameter handler: Receives each activity state.
  /// - Returns: A subscription that stops the calls.
  public func subscribe(_ handler: @escaping @Sendable (Bool) -> Void) -> OperationSubscription {
    let subscription = self.handlers.add(handler)
    handler(self.isActive)
    return subscription
  }
}
