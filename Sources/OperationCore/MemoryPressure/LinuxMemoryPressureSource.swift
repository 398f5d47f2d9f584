import OperationSynchronization

#if os(Linux)
  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #endif

  /// A memory pressure source that polls the Linux kernel's pressure stall information (PSI).
  ///
  /// The kernel reports, for the last 10, 60 and 300 seconds, the share of time in which some
  /// tasks (`some`) or all non-idle tasks (`full`) were stalled waiting for memory:
  ///
  /// ```
  /// some avg10=12.50 avg60=3.10 avg300=0.80 total=123456
  /// full avg10=1.20 avg60=0.40 avg300=0.10 total=23456
  /// ```
  ///
  /// The source reads the first file of ``filePaths`` that holds a valid reading: by default the
  /// `memory.pressure` file of the process's cgroup v2 group (the pressure that matters inside a
  /// container with a memory limit), then the system-wide `/proc/pressure/memory`. It maps the
  /// `avg10` values to a severity with ``Thresholds`` (by default `some` ≥ 10 % is
  /// ``MemoryPressure/warning``; `some` ≥ 40 % or `full` ≥ 5 % is ``MemoryPressure/critical``).
  ///
  /// Polling contract:
  /// - The first subscriber starts a polling session: the source reads the file immediately, then
  ///   once every ``interval`` on its clock. The last subscriber to leave ends the session.
  /// - A polling session starts at ``MemoryPressure/normal`` and notifies only when the severity
  ///   changes, including a return to ``MemoryPressure/normal``. A subscriber that joins a running
  ///   session hears the next change, not the current severity.
  /// - A missing, unreadable or malformed file (no PSI in the kernel, cgroup v1, a truncated
  ///   line) is not an error: that poll is skipped silently, without an event and without
  ///   `reportIssue`, and the last severity stands, so a system without PSI always looks
  ///   ``MemoryPressure/normal`` and never notifies. Polling goes on, so a file that appears later
  ///   is picked up.
  /// - Handlers run on the polling task, one after the other, outside any lock.
  ///
  /// Tests inject the files and the clock:
  ///
  /// ```swift
  /// let source = LinuxMemoryPressureSource(
  ///   filePaths: [directory + "/memory.pressure"],
  ///   interval: .seconds(5),
  ///   clock: testClock
  /// )
  /// ```
  ///
  /// > Note: Reading a PSI file is a small, non-blocking read of a kernel file, done on the polling
  /// > task.
  public final class LinuxMemoryPressureSource: MemoryPressureSource, Sendable {
    /// The `avg10` percentages at which a reading becomes a warning or critical.
    public struct Thresholds: Hashable, Sendable {
      /// The `some avg10` percentage from which the pressure is ``MemoryPressure/warning``.
      public var warningSomeAvg10: Double

      /// The `some avg10` percentage from which the pressure is ``MemoryPressure/critical``.
      public var criticalSomeAvg10: Double

      /// The `full avg10` percentage from which the pressure is ``MemoryPressure/critical``.
      public var criticalFullAvg10: Double

      /// Creates thresholds, in percent of wall time stalled over the last 10 seconds.
      ///
      /// - Parameters:
      ///   - warningSomeAvg10: `some avg10` for a warning; 10 by default.
      ///   - criticalSomeAvg10: `some avg10` for critical; 40 by default.
      ///   - criticalFullAvg10: `full avg10` for critical; 5 by default.
      public init(
        warningSomeAvg10: Double = 10,
        criticalSomeAvg10: Double = 40,
        criticalFullAvg10: Double = 5
      ) {
        self.warningSomeAvg10 = warningSomeAvg10
        self.criticalSomeAvg10 = criticalSomeAvg10
        self.criticalFullAvg10 = criticalFullAvg10
      }

      /// Some tasks stalled 10 % of the time is a warning; 40 %, or all tasks stalled 5 % of the
      /// time, is critical.
      ///
      /// At 10 % the kernel is reclaiming memory hard enough to slow the process down; at 5 %
      /// `full` the whole workload stops for memory and the OOM killer is near.
      public static let `default` = Self()

      /// The severity of a reading.
      ///
      /// - Parameter reading: A PSI reading.
      /// - Returns: ``MemoryPressure/critical``, ``MemoryPressure/warning`` or
      ///   ``MemoryPressure/normal``.
      public func pressure(for reading: Reading) -> MemoryPressure {
        if reading.fullAvg10 >= self.criticalFullAvg10
          || reading.someAvg10 >= self.criticalSomeAvg10
        {
          return .critical
        }
        if reading.someAvg10 >= self.warningSomeAvg10 {
          return .warning
        }
        return .normal
      }
    }

    /// The `avg10` values of one read of a PSI memory file.
    public struct Reading: Hashable, Sendable {
      /// The share of the last 10 seconds, in percent, in which some tasks waited for memory.
      public var someAvg10: Double

      /// The share of the last 10 seconds, in percent, in which all non-idle tasks waited for
      /// memory.
      public var fullAvg10: Double

      /// Creates a reading.
      ///
      /// - Parameters:
      ///   - someAvg10: The `some avg10` percentage.
      ///   - fullAvg10: The `full avg10` percentage.
      public init(someAvg10: Double, fullAvg10: Double) {
        self.someAvg10 = someAvg10
        self.fullAvg10 = fullAvg10
      }

      /// Parses the contents of a PSI memory file; `nil` when it is not one.
      ///
      /// The text needs a `some` line with an `avg10=` percentage between 0 and 100. The `full`
      /// line is optional (0 when absent), lines of other kinds are ignored, and a `some` or
      /// `full` line whose `avg10` is missing or not such a number, as in a truncated line, makes
      /// the whole text invalid.
      ///
      /// - Parameter text: The file's contents.
      public init?(parsing text: String) {
        var some: Double?
        var full: Double?
        for line in text.split(whereSeparator: \.isNewline) {
          let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
          guard let kind = fields.first, kind == "some" || kind == "full" else { continue }
          guard let avg10 = Self.percentage(named: "avg10", in: fields.dropFirst()) else {
            return nil
          }
          if kind == "some" {
            some = avg10
          } else {
            full = avg10
          }
        }
        guard let some else { return nil }
        self.init(someAvg10: some, fullAvg10: full ?? 0)
      }

      private static func percentage(
        named name: String,
        in fields: ArraySlice<Substring>
      ) -> Double? {
        for field in fields {
          guard let separator = field.firstIndex(of: "="), field[..<separator] == name else {
            continue
          }
          guard let value = Double(field[field.index(after: separator)...]),
            value.isFinite, (0...100).contains(value)
          else {
            return nil
          }
          return value
        }
        return nil
      }
    }

    /// The files the source reads, in order of preference.
    public let filePaths: [String]

    /// The time between two reads.
    public let interval: Duration

    /// The percentages that map a reading to a severity.
    public let thresholds: Thresholds

    private let clock: any Clock<Duration>
    private let state = Lock(State())

    private struct State {
      var subscribers = Subscribers<@Sendable (MemoryPressure) -> Void>()
      var polling: Task<Void, Never>?
      /// Counts polling sessions, so that a session that outlives its cancellation does not
      /// notify the subscribers of the next one.
      var session = 0
    }

    /// Creates a source.
    ///
    /// - Parameters:
    ///   - filePaths: The PSI files to read, in order of preference; by default the process's
    ///     cgroup v2 `memory.pressure`, then `/proc/pressure/memory`.
    ///   - interval: The time between two reads; 5 seconds by default. A non-positive interval is
    ///     reported as a warning (an issue under a test runner) and replaced by 5 seconds.
    ///   - clock: The clock the source sleeps on; a `ContinuousClock` by default.
    ///   - thresholds: The percentages that map a reading to a severity.
    public init(
      filePaths: [String] = LinuxMemoryPressureSource.defaultFilePaths(),
      interval: Duration = .seconds(5),
      clock: any Clock<Duration> = ContinuousClock(),
      thresholds: Thresholds = .default
    ) {
      if interval <= .zero {
        reportWarning(.memoryPressurePollingIntervalNotPositive(interval))
      }
      self.filePaths = filePaths
      self.interval = interval > .zero ? interval : .seconds(5)
      self.clock = clock
      self.thresholds = thresholds
    }

    /// The source that ``OperationClient/defaultMemoryPressureSource`` returns on Linux: the
    /// default files, every 5 seconds, on a `ContinuousClock`.
    ///
    /// Every cache that uses it shares one polling task.
    public static let shared = LinuxMemoryPressureSource()

    /// The PSI files for this process: its cgroup v2 `memory.pressure` file when it has one,
    /// then `/proc/pressure/memory`.
    ///
    /// The cgroup comes from the `0::<path>` line of the membership file; it is skipped on
    /// cgroup v1 systems, for the root group, and when the membership file cannot be read.
    ///
    /// - Parameters:
    ///   - cgroupFile: The process's cgroup membership file.
    ///   - cgroupMountPoint: Where the cgroup v2 hierarchy is mounted.
    /// - Returns: The candidate files, in order of preference.
    public static func defaultFilePaths(
      cgroupFile: String = "/proc/self/cgroup",
      cgroupMountPoint: String = "/sys/fs/cgroup"
    ) -> [String] {
      var paths = [String]()
      if let membership = readSmallFile(atPath: cgroupFile) {
        for line in membership.split(whereSeparator: \.isNewline) where line.hasPrefix("0::/") {
          let group = line.dropFirst(3).trimmingSlashes()
          if !group.isEmpty {
            paths.append("\(cgroupMountPoint.trimmingTrailingSlashes())/\(group)/memory.pressure")
          }
          break
        }
      }
      paths.append("/proc/pressure/memory")
      return paths
    }

    /// Reads the first of ``filePaths`` that holds a valid reading.
    ///
    /// - Returns: The reading, or `nil` when no file can be read and parsed.
    public func currentReading() -> Reading? {
      for path in self.filePaths {
        if let text = readSmallFile(atPath: path), let reading = Reading(parsing: text) {
          return reading
        }
      }
      return nil
    }

    /// The severity of ``currentReading()``.
    ///
    /// - Returns: The severity, or `nil` when no file can be read and parsed.
    public func currentPressure() -> MemoryPressure? {
      self.currentReading().map(self.thresholds.pressure(for:))
    }

    /// Calls `handler` whenever the severity changes; the first subscriber starts the polling.
    ///
    /// - Parameter handler: Receives each new severity, on the polling task.
    /// - Returns: A subscription whose end stops the polling when it is the last one.
    public func subscribe(
      with handler: @escaping @Sendable (MemoryPressure) -> Void
    ) -> OperationSubscription {
      let id = self.state.withLock { state in
        let id = state.subscribers.add(handler)
        if state.subscribers.count == 1 {
          state.session += 1
          let session = state.session
          // NB: Creating the task under the lock only schedules it; the task takes the lock
          // itself before it notifies anyone.
          state.polling = Task(name: "LinuxMemoryPressureSource polling") {
            await self.poll(session: session)
          }
        }
        return id
      }
      return OperationSubscription {
        let polling = self.state.withLock { state -> Task<Void, Never>? in
          guard state.subscribers.remove(id: id), state.subscribers.count == 0 else { return nil }
          defer { state.polling = nil }
          return state.polling
        }
        polling?.cancel()
      }
    }

    private func poll(session: Int) async {
      var last = MemoryPressure.normal
      while !Task.isCancelled {
        if let pressure = self.currentPressure(), pressure != last {
          last = pressure
          let handlers = self.state.withLock { state in
            state.session == session ? state.subscribers.handlers : []
          }
          for handler in handlers {
            handler(pressure)
          }
        }
        do {
          try await self.clock.sleep(for: self.interval)
        } catch {
          return
        }
      }
    }
  }

  // MARK: - Files

  /// Reads a small text file to the end, or `nil` when it cannot be opened or read.
  ///
  /// Kernel files such as `/proc/pressure/memory` report a size of zero, so the file is read in
  /// chunks until the end instead of by its size; at most 64 KiB are read.
  private func readSmallFile(atPath path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    let limit = 64 * 1024
    var bytes = [UInt8]()
    var chunk = [UInt8](repeating: 0, count: 4096)
    while bytes.count < limit {
      let count = chunk.withUnsafeMutableBytes { buffer in
        read(descriptor, buffer.baseAddress, buffer.count)
      }
      if count < 0 {
        if errno == EINTR { continue }
        return nil
      }
      if count == 0 { break }
      bytes.append(contentsOf: chunk[..<count])
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  extension StringProtocol {
    fileprivate func trimmingSlashes() -> Substring {
      let trailingTrimmed = self.trimmingTrailingSlashes()
      return trailingTrimmed.drop(while: { $0 == "/" })
    }

    fileprivate func trimmingTrailingSlashes() -> Substring {
      var result = Substring(self)
      while result.last == "/" {
        result.removeLast()
      }
      return result
    }
  }
#endif
