import Operation

/// Tells a network observer whether the server can be reached, by asking `GET /health` every
/// `interval`: the crash test's child gives its outbox this observer, so that nothing is sent
/// while the server is offline and delivery starts when it comes back.
///
/// A real app observes the device's network instead (`LinuxNetworkObserver`,
/// `NWPathMonitorObserver`); a server that is down while the network is up shows as HTTP 503,
/// which the outbox retries after its `retryDelay`.
final class ServerReachability: Sendable {
  /// The observer the outbox subscribes to.
  let observer: MockNetworkObserver
  private let api: PostsAPI
  private let interval: Duration
  private let isStopped = Locked(false)

  /// Asks the server once, for the observer's initial status; call ``start()`` to keep asking.
  ///
  /// - Parameters:
  ///   - api: The server's API.
  ///   - interval: The time between two questions.
  init(api: PostsAPI, interval: Duration) async {
    self.api = api
    self.interval = interval
    self.observer = MockNetworkObserver(
      initialStatus: await api.isReachable() ? .connected : .disconnected
    )
  }

  /// Starts asking the server, until ``stop()``.
  func start() {
    // NB: Stopped by a flag, never by cancelling the task: on Linux, cancelling a task that
    // awaits `URLSession.data(for:)` while its answer arrives can deadlock FoundationNetworking
    // (swiftlang/swift-corelibs-foundation#5412), which hung the crash test's child on its way
    // out.
    Task { [api, interval, observer, isStopped] in
      while !isStopped.withLock({ $0 }) {
        try? await Task.sleep(for: interval)
        let status: NetworkConnectionStatus =
          await api.isReachable() ? .connected : .disconnected
        if status != observer.currentStatus && !isStopped.withLock({ $0 }) {
          observer.send(status: status)
        }
      }
    }
  }

  /// Stops asking; a question in flight is let finish.
  func stop() {
    self.isStopped.withLock { $0 = true }
  }
}
