import OperationSynchronization

#if canImport(Network)
  // NB: Dispatch because `NWPathMonitor` delivers its path updates on a `DispatchQueue`, which
  // its `start(queue:)` takes; this observer exists on Apple platforms only.
  public import Dispatch
  public import Network

  // MARK: - NWPathMonitorObserver

  /// A network observer that follows an `NWPathMonitor` (Apple platforms only).
  ///
  /// The observer replaces the monitor's `pathUpdateHandler` with one that first calls the handler
  /// the monitor had, then notifies the observer's subscribers. Path statuses map as `satisfied`
  /// → ``NetworkConnectionStatus/connected``, `unsatisfied` →
  /// ``NetworkConnectionStatus/disconnected`` and `requiresConnection` →
  /// ``NetworkConnectionStatus/requiresConnection``.
  ///
  /// Observation contract:
  /// - ``subscribe(with:)`` does not call the handler at once; read ``currentStatus``.
  /// - Handlers are called on the monitor's queue for every path update the monitor delivers.
  /// - Releasing the observer cancels the monitor.
  public final class NWPathMonitorObserver: NetworkObserver, Sendable {
    private let monitor: NWPathMonitor
    private let handlers = HandlerList<@Sendable (NetworkConnectionStatus) -> Void>()

    /// Creates a stopped observer of `monitor`.
    ///
    /// - Parameter monitor: The monitor to follow; a monitor of all interfaces by default.
    public init(_ monitor: NWPathMonitor = NWPathMonitor()) {
      self.monitor = monitor
      let previousHandler = monitor.pathUpdateHandler
      monitor.pathUpdateHandler = { [weak self] path in
        previousHandler?(path)
        guard let self else { return }
        let status = NetworkConnectionStatus(path.status)
        for handler in self.handlers.handlers {
          handler(status)
        }
      }
    }

    deinit {
      self.monitor.cancel()
    }

    /// Whether the monitor has been started.
    public var isRunning: Bool {
      self.monitor.queue != nil
    }

    /// The status of the monitor's current path.
    public var currentStatus: NetworkConnectionStatus {
      NetworkConnectionStatus(self.monitor.currentPath.status)
    }

    /// Starts the monitor on `queue`.
    ///
    /// - Parameter queue: The queue that receives path updates.
    public func start(on queue: DispatchQueue) {
      self.monitor.start(queue: queue)
    }

    /// Cancels the monitor. A cancelled `NWPathMonitor` cannot be restarted.
    public func stop() {
      self.monitor.cancel()
    }

    /// Calls `handler` on every path update.
    ///
    /// - Parameter handler: Receives each status.
    /// - Returns: A subscription that stops the calls.
    public func subscribe(
      with handler: @escaping @Sendable (NetworkConnectionStatus) -> Void
    ) -> OperationSubscription {
      self.handlers.add(handler)
    }
  }

  // MARK: - Starting

  extension NWPathMonitorObserver {
    /// Creates an observer and starts its monitor.
    ///
    /// - Parameters:
    ///   - monitor: The monitor to follow.
    ///   - queue: The queue that receives path updates.
    /// - Returns: A running observer.
    public static func starting(
      monitor: NWPathMonitor = NWPathMonitor(),
      queue: DispatchQueue = .global()
    ) -> NWPathMonitorObserver {
      let observer = NWPathMonitorObserver(monitor)
      observer.start(on: queue)
      return observer
    }

    /// The process-wide observer of all interfaces.
    ///
    /// It is created stopped; ``startingShared()`` starts it.
    public static let shared = NWPathMonitorObserver()

    /// Returns ``shared``, started on a global queue if it was not running.
    ///
    /// - Returns: The running shared observer.
    public static func startingShared() -> NWPathMonitorObserver {
      startSharedOnce.withLock { isStarted in
        guard !isStarted else { return }
        isStarted = true
        Self.shared.start(on: .global())
      }
      return Self.shared
    }
  }

  private let startSharedOnce = Lock(false)

  // MARK: - Status Mapping

  extension NetworkConnectionStatus {
    fileprivate init(_ status: NWPath.Status) {
      switch status {
      case .satisfied: self = .connected
      case .unsatisfied: self = .disconnected
      case .requiresConnection: self = .requiresConnection
      @unknown default: self = .connected
      }
    }
  }
#endif
