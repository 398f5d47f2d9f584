public import Observation
@_spi(Warnings) public import OperationCore
import OperationSynchronization

/// An observable model of the network connection status, fed by a `NetworkObserver`.
///
/// It replaces upstream's `@SharedReader(.networkStatus)`: read ``status`` in an `@Observable`
/// model, in `withObservationTracking`, or in a SwiftUI view, and it updates as the observer
/// reports changes.
///
/// ```swift
/// @MainActor
/// @Observable
/// final class ConnectionBannerModel {
///   let network = NetworkStatus()
///
///   var isOffline: Bool {
///     self.network.status == .disconnected
///   }
/// }
/// ```
///
/// It subscribes to the observer when created and unsubscribes when released. Without an
/// observer it follows `@Dependency(\.defaultNetworkObserver)`, so a test can drive it with a
/// `MockNetworkObserver`:
///
/// ```swift
/// let observer = MockNetworkObserver()
/// let network = withDependencies {
///   $0.defaultNetworkObserver = observer
/// } operation: {
///   NetworkStatus()
/// }
/// observer.send(status: .disconnected)
/// network.status  // .disconnected
/// ```
///
/// Changes are applied on the thread where the observer reports them, and observers registered
/// with Observation are told of every change of ``status``.
public final class NetworkStatus: Observable, Sendable {
  // NB: `registrar` and `observer` are immutable; `current` and `subscription` have locks of
  // their own, and neither lock is held while the other is taken or while observers are told.
  private let registrar = ObservationRegistrar()
  private let current: Lock<NetworkConnectionStatus>
  private let subscription = Lock<OperationSubscription?>(nil)

  /// The observer this model follows.
  public let observer: any NetworkObserver & Sendable

  /// Creates a model that follows a network observer.
  ///
  /// - Parameter observer: The observer; `@Dependency(\.defaultNetworkObserver)` when `nil`.
  public init(observer: (any NetworkObserver & Sendable)? = nil) {
    @Dependency(\.defaultNetworkObserver) var defaultObserver
    let observer = observer ?? defaultObserver
    self.observer = observer
    self.current = Lock(observer.currentStatus)
    let subscription = observer.subscribe { [weak self] status in
      self?.update(to: status)
    }
    self.subscription.withLock { $0 = subscription }
  }

  deinit {
    self.subscription.withLock { $0 }?.cancel()
  }

  /// The latest status the observer reported; reading it registers an Observation dependency.
  public var status: NetworkConnectionStatus {
    self.registrar.access(self, keyPath: \.status)
    return self.current.withLock { $0 }
  }

  private func update(to status: NetworkConnectionStatus) {
    guard self.current.withLock({ $0 }) != status else { return }
    self.registrar.withMutation(of: self, keyPath: \.status) {
      self.current.withLock { $0 = status }
    }
  }
}
