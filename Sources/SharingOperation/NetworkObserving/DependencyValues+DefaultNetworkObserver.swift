public import Dependencies
@_spi(Warnings) public import Operation

extension DependencyValues {
  /// The network observer that ``NetworkStatus`` follows when it is not given one.
  ///
  /// The live value is the platform's observer, `OperationClient.defaultNetworkObserver`
  /// (`NWPathMonitorObserver` on Apple platforms, `LinuxNetworkObserver` on Linux). On a platform
  /// without one, the library reports a warning and uses a `MockNetworkObserver` that stays
  /// connected. Under a test runner it is a `MockNetworkObserver` that stays connected until a
  /// test sends it another status, so tests never watch the real network.
  ///
  /// Provide your own early in your app's lifecycle on platforms without an observer:
  ///
  /// ```swift
  /// prepareDependencies {
  ///   $0.defaultNetworkObserver = MyPlatformObserver()
  /// }
  /// ```
  public var defaultNetworkObserver: any NetworkObserver & Sendable {
    get { self[DefaultNetworkObserverKey.self] }
    set { self[DefaultNetworkObserverKey.self] = newValue }
  }
}

private enum DefaultNetworkObserverKey: DependencyKey {
  static var liveValue: any NetworkObserver & Sendable {
    if let observer = OperationClient.defaultNetworkObserver {
      return observer
    }
    reportWarning(.noDefaultNetworkObserver)
    return MockNetworkObserver()
  }

  static var testValue: any NetworkObserver & Sendable {
    MockNetworkObserver()
  }
}

@_spi(Warnings)
extension OperationWarning {
  /// The platform has no network observer, so `@Dependency(\.defaultNetworkObserver)` is a
  /// `MockNetworkObserver` that stays connected.
  public static var noDefaultNetworkObserver: Self {
    Self(
      """
      This platform has no default NetworkObserver, so a MockNetworkObserver that stays connected \
      is used instead.

      To observe the network, provide an observer as early as possible in your app's lifecycle:

          prepareDependencies {
            $0.defaultNetworkObserver = MyPlatformObserver()
          }
      """
    )
  }
}
