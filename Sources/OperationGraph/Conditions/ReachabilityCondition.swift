/// A condition that lets a node run only while the network is reachable, as a network observer
/// of the core reports it (danthorpe/Operations' `ReachabilityCondition`, on any platform).
///
/// It reads the observer's current status when it is evaluated: ``NetworkConnectionStatus``
/// `.connected` satisfies it; anything else fails it with ``ReachabilityConditionError``.
///
/// ```swift
/// let network = LinuxNetworkObserver.startingShared()
/// try graph.add(UploadRequest(), conditions: [ReachabilityCondition(observer: network)])
/// ```
public struct ReachabilityCondition: GraphCondition {
  /// The observer whose status decides.
  public let observer: any NetworkObserver & Sendable

  /// Creates the condition.
  ///
  /// - Parameter observer: The observer whose status decides; the core's
  ///   `LinuxNetworkObserver`, `NWPathMonitorObserver` on Apple platforms, or a
  ///   `MockNetworkObserver` in tests.
  public init(observer: any NetworkObserver & Sendable) {
    self.observer = observer
  }

  /// "Reachability".
  public var name: String {
    "Reachability"
  }

  public func evaluate(in context: ConditionContext) async -> ConditionResult {
    self.verdict()
  }

  /// The verdict from the observer's current status, for whatever the condition guards.
  package func verdict() -> ConditionResult {
    let status = self.observer.currentStatus
    return status == .connected ? .satisfied : .failed(ReachabilityConditionError(status: status))
  }
}

/// The network was not reachable when a ``ReachabilityCondition`` was evaluated.
public struct ReachabilityConditionError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The status the observer reported.
  public let status: NetworkConnectionStatus

  /// Creates the error.
  public init(status: NetworkConnectionStatus) {
    self.status = status
  }

  public var description: String {
    "The network is not reachable (status: \(self.status))."
  }
}
