extension NetworkObserver where Self == AnySendableNetworkObserver {
  /// The running, process-wide network observer that suits the platform.
  ///
  /// | Platform | Observer |
  /// | --- | --- |
  /// | Apple platforms (`Network` available) | `NWPathMonitorObserver.startingShared()` |
  /// | Linux | `LinuxNetworkObserver.startingShared()` |
  /// | Other platforms with `URLSession` (Windows, Android, …) | `URLConnectionObserver.startingShared()` |
  /// | WASI | A ``MockNetworkObserver`` that stays ``NetworkConnectionStatus/connected`` |
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
    #elseif !os(WASI)
      AnySendableNetworkObserver(URLConnectionObserver.startingShared())
    #else
      AnySendableNetworkObserver(wasiFallbackNetworkObserver)
    #endif
  }
}

#if os(WASI)
  // NB: WASI has neither URLSession nor an interface list; the status is unknown, so stay
  // connected rather than stall operations that wait for the network.
  private let wasiFallbackNetworkObserver = MockNetworkObserver(initialStatus: .connected)
#endif
