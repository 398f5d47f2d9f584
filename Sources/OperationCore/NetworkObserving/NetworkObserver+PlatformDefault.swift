extension NetworkObserver where Self == AnySendableNetworkObserver {
  /// The running, process-wide network observer that suits the platform.
  ///
  /// | Platform | Observer |
  /// | --- | --- |
  /// | Apple platforms (`Network` available) | `NWPathMonitorObserver.startingShared()` |
  /// | Linux | `LinuxNetworkObserver.startingShared()` |
  /// | Other platforms (Windows, Android, WASI) | A ``MockNetworkObserver`` that stays ``NetworkConnectionStatus/connected`` |
  ///
  /// On the other platforms, `OperationClient.defaultNetworkObserver` (in `Operation`) pings with
  /// `URLConnectionObserver` instead, which is in a module of its own so that the core does not
  /// link FoundationNetworking.
  ///
  /// Every read returns the same shared observer, started on first use.
  ///
  /// ```swift
  /// let query = PostQuery(id: 1)
  ///   .enableAutomaticRunning(onlyWhen: .connected(to: .platformDefault))
  /// ```
  public static var platformDefault: AnySendableNetworkObserver {
    #if canImport(Network)
      AnySendableNetworkObserver(NWPathMonitorObserver.startingShared())
    #elseif os(Linux)
      AnySendableNetworkObserver(LinuxNetworkObserver.startingShared())
    #else
      AnySendableNetworkObserver(fallbackNetworkObserver)
    #endif
  }
}

#if !canImport(Network) && !os(Linux)
  // NB: Without Network.framework or Linux's interface list the core cannot see the network; the
  // status is unknown, so stay connected rather than stall operations that wait for the network.
  private let fallbackNetworkObserver = MockNetworkObserver(initialStatus: .connected)
#endif
