import OperationSynchronization

/// A network observer whose status changes only when you send one, for tests and previews.
///
/// ```swift
/// let observer = MockNetworkObserver(initialStatus: .disconnected)
/// let spec = NetworkConnectionRunSpecification(observer: observer)
/// spec.isSatisfied(in: OperationContext())  // false
/// observer.send(status: .connected)
/// spec.isSatisfied(in: OperationContext())  // true
/// ```
///
/// Observation contract:
/// - ``subscribe(with:)`` calls the handler at once with the current status.
/// - ``send(status:)`` stores the status, then calls every handler on the sending thread. It does
///   not deduplicate: sending the current status again notifies again.
public final class MockNetworkObserver: NetworkObserver, Sendable {
  private let status: Lock<NetworkConnectionStatus>
  private let handlers = HandlerList<@Sendable (NetworkConnectionStatus) -> Void>()

  /// Creates an observer.
  ///
  /// - Parameter initialStatus: The status until one is sent; ``NetworkConnectionStatus/connected``
  ///   by default.
  public init(initialStatus: NetworkConnectionStatus = .connected) {
    self.status = Lock(initialStatus)
  }

  /// The number of live subscriptions.
  public var subscriberCount: Int {
    self.handlers.count
  }

  /// The last status sent, or the initial status.
  public var currentStatus: NetworkConnectionStatus {
    self.status.withLock { $0 }
  }

  /// Stores a status and calls every subscriber with it.
  ///
  /// - Parameter status: The new status.
  public func send(status: NetworkConnectionStatus) {
    self.status.withLock { $0 = status }
    for handler in self.handlers.handlers {
      handler(status)
    }
  }

  /// Calls `handler` at once with the current status, then with every status sent.
  ///
  /// - Parameter handler: Receives each status.
  /// - Returns: A subscription that stops the calls.
  public func subscribe(
    with handler: @escaping @Sendable (NetworkConnectionStatus) -> Void
  ) -> OperationSubscription {
    let subscription = self.handlers.add(handler)
    handler(self.currentStatus)
    return subscription
  }
}
