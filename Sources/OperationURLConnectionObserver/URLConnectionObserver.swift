// NB: This observer is a module of its own because `URLSession` lives in FoundationNetworking on
// Linux, which brings libcurl: in `OperationCore` it made every program that links the core link
// them too. `Operation` re-exports this module, so `import Operation` still sees the observer.
#if !os(WASI)
  public import Foundation
  public import OperationCore

  #if canImport(FoundationNetworking)
    public import FoundationNetworking
  #endif

  // MARK: - URLConnectionObserver

  /// A network observer that infers connectivity by pinging a URL with an HTTP `HEAD` request.
  ///
  /// ``start()`` pings at once and then once every interval of the clock you pass, so tests can
  /// drive the pings with their own clock. Each ping sets the status:
  /// - a response, whatever its status code, gives `NetworkConnectionStatus.connected`;
  /// - a `URLError` whose code says the device is offline (`notConnectedToInternet`,
  ///   `networkConnectionLost`, `timedOut`, `internationalRoamingOff`, `callIsActive`,
  ///   `dataNotAllowed`) gives `NetworkConnectionStatus.disconnected`;
  /// - any other error also gives `NetworkConnectionStatus.connected`, since the network
  ///   answered in some way;
  /// - a cancelled ping, including one in flight during ``stop()``, changes nothing.
  ///
  /// ```swift
  /// let observer = URLConnectionObserver.starting(pingingEvery: .seconds(60))
  /// let query = PostQuery(id: 1).enableAutomaticRunning(onlyWhen: .connected(to: observer))
  /// ```
  ///
  /// Observation contract:
  /// - The status is `NetworkConnectionStatus.connected` until a ping says otherwise.
  /// - ``subscribe(with:)`` calls the handler at once with the current status, and starts the
  ///   observer if it is not running.
  /// - Later, handlers are called only when the status changes, on the task that pings.
  ///
  /// > Note: On Linux, `LinuxNetworkObserver` reads the interfaces without any network traffic
  /// > and is the platform default; this observer tells whether a server is actually reachable.
  /// > It is in the `OperationURLConnectionObserver` module (re-exported by `Operation`), so that
  /// > only the programs that use it link FoundationNetworking.
  public final class URLConnectionObserver: NetworkObserver, Sendable {
    private let core: PollingNetworkObserverCore

    /// Creates a stopped observer.
    ///
    /// - Parameters:
    ///   - session: The session that sends the pings; `URLSession.operationConnectivity` by
    ///     default.
    ///   - url: The URL to ping; `URL.operationURLConnectionObserverDefault` by default.
    ///   - clock: The clock that times the pings.
    ///   - interval: The time between pings; 120 seconds by default.
    public init(
      session: URLSession = .operationConnectivity,
      url: URL = .operationURLConnectionObserverDefault,
      clock: some Clock<Duration> = ContinuousClock(),
      pingingEvery interval: Duration = .seconds(120)
    ) {
      var request = URLRequest(url: url)
      request.httpMethod = "HEAD"
      request.cachePolicy = .reloadIgnoringLocalCacheData
      self.core = PollingNetworkObserverCore(
        initialStatus: .connected,
        sleep: { try await clock.sleep(for: interval) },
        poll: { [request] in await Self.status(pinging: request, using: session) }
      )
    }

    /// Whether the observer is pinging.
    public var isRunning: Bool {
      self.core.isRunning
    }

    /// The status of the latest ping, or `NetworkConnectionStatus.connected` before the first.
    public var currentStatus: NetworkConnectionStatus {
      self.core.currentStatus
    }

    /// Pings at once and then at every interval; if already running, restarts the timer.
    public func start() {
      self.core.start()
    }

    /// Stops pinging; a ping in flight is discarded.
    public func stop() {
      self.core.stop()
    }

    /// Calls `handler` at once with the current status, then on every change, and starts the
    /// observer if it is not running.
    ///
    /// - Parameter handler: Receives each new status.
    /// - Returns: A subscription that stops the calls. Ending it does not stop the observer.
    public func subscribe(
      with handler: @escaping @Sendable (NetworkConnectionStatus) -> Void
    ) -> OperationSubscription {
      self.core.subscribe(with: handler)
    }

    private static func status(
      pinging request: URLRequest,
      using session: URLSession
    ) async -> NetworkConnectionStatus? {
      do {
        _ = try await session.data(for: request)
        return .connected
      } catch let error as URLError {
        switch error.code {
        case .notConnectedToInternet, .networkConnectionLost, .timedOut,
          .internationalRoamingOff, .callIsActive, .dataNotAllowed:
          return .disconnected
        case .cancelled:
          return nil
        default:
          return .connected
        }
      } catch {
        // NB: A `CancellationError` carries no information about the network.
        return error is CancellationError ? nil : .connected
      }
    }
  }

  // MARK: - Starting

  extension URLConnectionObserver {
    /// Creates an observer and starts pinging.
    ///
    /// - Parameters:
    ///   - session: The session that sends the pings.
    ///   - url: The URL to ping.
    ///   - clock: The clock that times the pings.
    ///   - interval: The time between pings.
    /// - Returns: A running observer.
    public static func starting(
      session: URLSession = .operationConnectivity,
      url: URL = .operationURLConnectionObserverDefault,
      clock: some Clock<Duration> = ContinuousClock(),
      pingingEvery interval: Duration = .seconds(120)
    ) -> URLConnectionObserver {
      let observer = URLConnectionObserver(
        session: session,
        url: url,
        clock: clock,
        pingingEvery: interval
      )
      observer.start()
      return observer
    }

    /// The process-wide observer that pings the default URL every 120 seconds.
    ///
    /// It is created stopped; ``startingShared()`` starts it.
    public static let shared = URLConnectionObserver()

    /// Returns ``shared``, started if it was not running.
    ///
    /// - Returns: The running shared observer.
    public static func startingShared() -> URLConnectionObserver {
      Self.shared.core.startIfNeeded()
      return Self.shared
    }
  }

  // MARK: - Connectivity Helpers

  extension URLSession {
    /// The session ``URLConnectionObserver`` pings with by default: a 5-second request timeout,
    /// no cookies and no cache.
    public static let operationConnectivity: URLSession = {
      let configuration = URLSessionConfiguration.ephemeral
      configuration.timeoutIntervalForRequest = 5
      configuration.httpCookieStorage = nil
      configuration.httpShouldSetCookies = false
      configuration.urlCache = nil
      configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
      return URLSession(configuration: configuration)
    }()
  }

  extension URL {
    /// The URL ``URLConnectionObserver`` pings by default:
    /// `https://www.apple.com/library/test/success.html`.
    public static let operationURLConnectionObserverDefault = URL(
      string: "https://www.apple.com/library/test/success.html"
    )!
  }
#endif
