#if os(Linux)
  #if canImport(FoundationEssentials)
    public import FoundationEssentials
  #else
    public import Foundation
  #endif

  // MARK: - LinuxNetworkObserver

  /// A network observer that follows the kernel's view of the network interfaces on Linux.
  ///
  /// The observer reads `/sys/class/net/<interface>/operstate`, `carrier` and `flags` and ignores
  /// loopback interfaces (`lo`, or any interface whose `flags` have `IFF_LOOPBACK`, 0x8). It
  /// reports:
  /// - ``NetworkConnectionStatus/connected`` when some other interface's `operstate` is `up`, or is
  ///   `unknown` (as for many virtual interfaces such as `tun` or WireGuard) with `carrier` `1`;
  /// - ``NetworkConnectionStatus/disconnected`` otherwise, including when only loopback
  ///   interfaces exist.
  ///
  /// Reading never fails; unreadable data has a defined fallback:
  /// - If the root directory cannot be listed (for example, sysfs is not mounted in a sandbox), the
  ///   status is ``NetworkConnectionStatus/connected``, because nothing is known and operations
  ///   gated on connectivity should not stall for it.
  /// - A missing or unrecognised `operstate` counts as `unknown`, so `carrier` decides.
  /// - A missing or unparsable `carrier` (the kernel refuses to read it on a down interface)
  ///   counts as no carrier.
  /// - Unparsable `flags` mark the interface as not loopback, unless it is named `lo`.
  /// - An entry that is not an interface directory (such as `bonding_masters`) has no readable
  ///   files and so counts as not connected.
  ///
  /// The observer reads the interfaces once when it is created, then, once started, at once and
  /// after every interval of the clock you pass. Call ``refresh()`` to read them immediately.
  ///
  /// ```swift
  /// let observer = LinuxNetworkObserver.startingShared()
  /// let query = PostQuery(id: 1).enableAutomaticRunning(onlyWhen: .connected(to: observer))
  /// ```
  ///
  /// Observation contract:
  /// - ``subscribe(with:)`` calls the handler at once with the current status, and starts the
  ///   observer if it is not running.
  /// - Later, handlers are called only when the status changes, on the polling task or the caller
  ///   of ``refresh()``.
  ///
  /// > Note: An interface being up says the link works, not that the internet is reachable. Use
  /// > `URLConnectionObserver` (in `OperationURLConnectionObserver`, which `Operation` re-exports)
  /// > when reaching a particular server matters.
  public final class LinuxNetworkObserver: NetworkObserver, Sendable {
    private let root: URL
    private let core: PollingNetworkObserverCore

    /// Creates a stopped observer and reads the interfaces once.
    ///
    /// - Parameters:
    ///   - root: The directory that lists the interfaces; `/sys/class/net` by default. Tests pass
    ///     a directory of fixture files.
    ///   - clock: The clock that times the polls.
    ///   - interval: The time between polls; 5 seconds by default.
    public init(
      root: URL = URL(filePath: "/sys/class/net", directoryHint: .isDirectory),
      clock: some Clock<Duration> = ContinuousClock(),
      pollingEvery interval: Duration = .seconds(5)
    ) {
      self.root = root
      self.core = PollingNetworkObserverCore(
        initialStatus: Self.status(readingInterfacesIn: root),
        sleep: { try await clock.sleep(for: interval) },
        poll: { Self.status(readingInterfacesIn: root) }
      )
    }

    /// Whether the observer is polling.
    public var isRunning: Bool {
      self.core.isRunning
    }

    /// The status from the latest read of the interfaces.
    public var currentStatus: NetworkConnectionStatus {
      self.core.currentStatus
    }

    /// Polls at once and then at every interval; if already running, restarts the timer.
    public func start() {
      self.core.start()
    }

    /// Stops polling.
    public func stop() {
      self.core.stop()
    }

    /// Reads the interfaces now and notifies subscribers if the status changed.
    ///
    /// - Returns: The status just read.
    @discardableResult
    public func refresh() -> NetworkConnectionStatus {
      let status = Self.status(readingInterfacesIn: self.root)
      self.core.update(status)
      return status
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

    private static func status(readingInterfacesIn root: URL) -> NetworkConnectionStatus {
      guard let names = try? FileManager.default.contentsOfDirectory(atPath: root.path) else {
        return .connected
      }
      let isConnected = names.contains { name in
        LinuxNetworkInterface(name: name, root: root).isConnectedNonLoopback
      }
      return isConnected ? .connected : .disconnected
    }
  }

  // MARK: - Starting

  extension LinuxNetworkObserver {
    /// Creates an observer and starts polling.
    ///
    /// - Parameters:
    ///   - root: The directory that lists the interfaces.
    ///   - clock: The clock that times the polls.
    ///   - interval: The time between polls.
    /// - Returns: A running observer.
    public static func starting(
      root: URL = URL(filePath: "/sys/class/net", directoryHint: .isDirectory),
      clock: some Clock<Duration> = ContinuousClock(),
      pollingEvery interval: Duration = .seconds(5)
    ) -> LinuxNetworkObserver {
      let observer = LinuxNetworkObserver(root: root, clock: clock, pollingEvery: interval)
      observer.start()
      return observer
    }

    /// The process-wide observer of `/sys/class/net`, polling every 5 seconds.
    ///
    /// It is created stopped; ``startingShared()`` starts it.
    public static let shared = LinuxNetworkObserver()

    /// Returns ``shared``, started if it was not running.
    ///
    /// - Returns: The running shared observer.
    public static func startingShared() -> LinuxNetworkObserver {
      Self.shared.core.startIfNeeded()
      return Self.shared
    }
  }

  // MARK: - Interface

  /// What sysfs says about one entry of the interface directory.
  private struct LinuxNetworkInterface {
    private static let loopbackFlag: UInt = 0x8

    let name: String
    let operstate: String?
    let carrier: Int?
    let flags: UInt?

    init(name: String, root: URL) {
      self.name = name
      let directory = root.appending(path: name, directoryHint: .isDirectory)
      self.operstate = Self.read("operstate", in: directory)?.lowercased()
      self.carrier = Self.read("carrier", in: directory).flatMap { Int($0) }
      self.flags = Self.read("flags", in: directory).flatMap { text in
        let digits = text.hasPrefix("0x") || text.hasPrefix("0X") ? text.dropFirst(2) : text[...]
        return UInt(digits, radix: 16)
      }
    }

    var isLoopback: Bool {
      if self.name == "lo" { return true }
      guard let flags else { return false }
      return flags & Self.loopbackFlag != 0
    }

    var isConnectedNonLoopback: Bool {
      guard !self.isLoopback else { return false }
      switch self.operstate {
      case "up":
        return true
      case "down", "dormant", "lowerlayerdown", "notpresent", "testing":
        return false
      default:
        // NB: "unknown", a missing file, or text the kernel does not document: the carrier decides.
        return self.carrier == 1
      }
    }

    private static func read(_ file: String, in directory: URL) -> String? {
      let url = directory.appending(path: file, directoryHint: .notDirectory)
      guard let data = try? Data(contentsOf: url) else { return nil }
      // NB: Each sysfs attribute holds one token and a newline; keep the first token.
      return String(decoding: data, as: UTF8.self)
        .split(whereSeparator: \.isWhitespace)
        .first
        .map(String.init)
    }
  }
#endif
