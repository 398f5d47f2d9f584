/// A type-erased, sendable network observer.
public struct AnySendableNetworkObserver: NetworkObserver, Sendable {
  /// The erased observer.
  public let base: any NetworkObserver & Sendable

  /// Erases an observer.
  ///
  /// - Parameter base: The observer to erase.
  public init(_ base: any NetworkObserver & Sendable) {
    self.base = base
  }

  /// The erased observer's current status.
  public var currentStatus: NetworkConnectionStatus {
    self.base.currentStatus
  }

  /// Subscribes to the erased observer.
  ///
  /// - Parameter handler: Receives each new status.
  /// - Returns: The erased observer's subscription.
  public func subscribe(
    with handler: @escaping @Sendable (NetworkConnectionStatus) -> Void
  ) -> OperationSubscription {
    self.base.subscribe(with: handler)
  }
}
