/// A source of the device's network connection status.
///
/// Conformers in this package:
/// - ``MockNetworkObserver``: driven by hand, for tests and previews.
/// - `LinuxNetworkObserver` (Linux): polls the kernel's view of the network interfaces.
/// - `URLConnectionObserver` (not WASI; in the `OperationURLConnectionObserver` module, which
///   `Operation` re-exports): pings a URL periodically.
/// - `NWPathMonitorObserver` (Apple platforms): wraps `NWPathMonitor`.
///
/// ``NetworkObserver/platformDefault`` picks the best one for the platform.
public protocol NetworkObserver {
  /// The latest status this observer knows.
  var currentStatus: NetworkConnectionStatus { get }

  /// Calls `handler` with the status when it changes.
  ///
  /// Some observers also call `handler` at once with ``currentStatus``; each conformer documents
  /// whether it does.
  ///
  /// - Parameter handler: Receives each new status.
  /// - Returns: A subscription that stops the calls.
  func subscribe(
    with handler: @escaping @Sendable (NetworkConnectionStatus) -> Void
  ) -> OperationSubscription
}
