import OperationSynchronization

#if os(Linux)
  import Foundation
  import Operation
  @_spi(Warnings) import OperationCore
  import OperationTestSupport
  import Testing

  @Suite struct `LinuxMemoryPressureSource tests` {
    // MARK: - Parsing

    @Test func `Parses The Some And Full Averages`() {
      let text = """
        some avg10=12.50 avg60=3.10 avg300=0.80 total=123456
        full avg10=1.20 avg60=0.40 avg300=0.10 total=23456

        """
      #expect(
        LinuxMemoryPressureSource.Reading(parsing: text)
          == LinuxMemoryPressureSource.Reading(someAvg10: 12.5, fullAvg10: 1.2)
      )
    }

    @Test func `A Missing Full Line Counts As No Full Stall`() {
      #expect(
        LinuxMemoryPressureSource.Reading(parsing: "some avg10=7.00 avg60=0.00 total=1")
          == LinuxMemoryPressureSource.Reading(someAvg10: 7, fullAvg10: 0)
      )
    }

    @Test func `Ignores Lines Of Other Kinds`() {
      let text = "header\nsome avg10=1.00\nother avg10=99.00\nfull avg10=0.50"
      #expect(
        LinuxMemoryPressureSource.Reading(parsing: text)
          == LinuxMemoryPressureSource.Reading(someAvg10: 1, fullAvg10: 0.5)
      )
    }

    @Test(
      arguments: [
        "",
        "hello world",
        "\u{0}\u{1}\u{2}",
        "some",
        "some avg10=",
        "some avg1",
        "some avg60=1.00 avg300=1.00",
        "some avg10=abc avg60=0.00",
        "some avg10=nan",
        "some avg10=inf",
        "some avg10=-1.00",
        "some avg10=150.00",
        "full avg10=1.00 avg60=0.00",
        "some avg10=1.00 avg60=0.00\nfull avg10=",
        "some avg10=1.00 avg60=0.00\nfull avg",
      ] as [OneLineText]
    )
    func `Garbage And Truncated Text Is Not A Reading`(text: OneLineText) {
      #expect(LinuxMemoryPressureSource.Reading(parsing: text.value) == nil)
    }

    @Test(arguments: [
      (0.0, 0.0, MemoryPressure.normal),
      (9.99, 0.0, .normal),
      (10.0, 0.0, .warning),
      (39.99, 4.99, .warning),
      (40.0, 0.0, .critical),
      (12.0, 5.0, .critical),
      (100.0, 100.0, .critical),
    ])
    func `Default Thresholds Map Readings To Severities`(
      some: Double,
      full: Double,
      pressure: MemoryPressure
    ) {
      let reading = LinuxMemoryPressureSource.Reading(someAvg10: some, fullAvg10: full)
      #expect(LinuxMemoryPressureSource.Thresholds.default.pressure(for: reading) == pressure)
    }

    @Test func `Custom Thresholds Map Readings To Severities`() {
      let thresholds = LinuxMemoryPressureSource.Thresholds(
        warningSomeAvg10: 1,
        criticalSomeAvg10: 2,
        criticalFullAvg10: 50
      )
      let reading = { (some: Double) in
        LinuxMemoryPressureSource.Reading(someAvg10: some, fullAvg10: 0)
      }
      #expect(thresholds.pressure(for: reading(0.5)) == .normal)
      #expect(thresholds.pressure(for: reading(1.5)) == .warning)
      #expect(thresholds.pressure(for: reading(2)) == .critical)
    }

    // MARK: - Files

    @Test func `Reads The First File That Holds A Valid Reading`() throws {
      let directory = try TemporaryDirectory()
      let garbage = try directory.write("garbage", to: "garbage")
      let valid = try directory.write(Self.psi(some: 20, full: 0), to: "valid")
      let source = LinuxMemoryPressureSource(
        filePaths: [directory.path("missing"), garbage, directory.path(""), valid]
      )
      #expect(
        source.currentReading() == LinuxMemoryPressureSource.Reading(someAvg10: 20, fullAvg10: 0)
      )
      #expect(source.currentPressure() == .warning)
    }

    @Test func `No Readable File Gives No Reading`() throws {
      let directory = try TemporaryDirectory()
      let garbage = try directory.write("some avg10=", to: "garbage")
      let source = LinuxMemoryPressureSource(filePaths: [directory.path("missing"), garbage])
      #expect(source.currentReading() == nil)
      #expect(source.currentPressure() == nil)
      #expect(LinuxMemoryPressureSource(filePaths: []).currentPressure() == nil)
    }

    @Test(
      arguments: [
        ("12:memory:/a\n0::/user.slice/app.scope\n", ["/cg/user.slice/app.scope/memory.pressure"]),
        ("0::/system.slice/\n", ["/cg/system.slice/memory.pressure"]),
        ("4:memory:/process\n1:cpu:/\n", []),
        ("0::/\n", []),
        ("", []),
      ] as [(OneLineText, [String])]
    )
    func `Default Files Start With The Cgroup V2 File`(
      membership: OneLineText,
      cgroup: [String]
    ) throws {
      let directory = try TemporaryDirectory()
      let file = try directory.write(membership.value, to: "cgroup")
      #expect(
        LinuxMemoryPressureSource.defaultFilePaths(cgroupFile: file, cgroupMountPoint: "/cg/")
          == cgroup + ["/proc/pressure/memory"]
      )
    }

    @Test func `Default Files Fall Back To Proc Without A Membership File`() throws {
      let directory = try TemporaryDirectory()
      #expect(
        LinuxMemoryPressureSource.defaultFilePaths(cgroupFile: directory.path("missing"))
          == ["/proc/pressure/memory"]
      )
    }

    @Test func `Reads This Machine's Files Without Crashing`() {
      let source = LinuxMemoryPressureSource()
      #expect(source.filePaths.last == "/proc/pressure/memory")
      #expect(source.interval == .seconds(5))
      let pressure = source.currentPressure()
      #expect(pressure == nil || [.normal, .warning, .critical].contains(pressure))
      if let reading = source.currentReading() {
        #expect((0...100).contains(reading.someAvg10))
        #expect((0...100).contains(reading.fullAvg10))
      }
    }

    @Test func `A Non-Positive Interval Is Reported And Replaced`() {
      withKnownIssue {
        let source = LinuxMemoryPressureSource(filePaths: [], interval: .zero)
        #expect(source.interval == .seconds(5))
      } matching: { issue in
        issue.comments.contains(
          Comment(
            rawValue: OperationWarning.memoryPressurePollingIntervalNotPositive(.zero).message
          )
        )
      }
    }

    // MARK: - Polling

    @Test func `Notifies Only When The Severity Changes`() async throws {
      let directory = try TemporaryDirectory()
      let file = try directory.write(Self.psi(some: 0, full: 0), to: "memory.pressure")
      let clock = ManualClock()
      let source = LinuxMemoryPressureSource(filePaths: [file], interval: .seconds(5), clock: clock)
      let recorded = Lock([MemoryPressure]())
      let subscription = source.subscribe { pressure in recorded.withLock { $0.append(pressure) } }

      await clock.waitForSleepers(count: 1)
      #expect(recorded.withLock { $0 } == [])

      let steps: [(some: Double, full: Double, expected: [MemoryPressure])] = [
        (15, 0, [.warning]),
        (20, 1, [.warning]),
        (50, 0, [.warning, .critical]),
        (20, 6, [.warning, .critical]),
        (0, 0, [.warning, .critical, .normal]),
        (0, 0, [.warning, .critical, .normal]),
      ]
      for step in steps {
        try directory.write(Self.psi(some: step.some, full: step.full), to: "memory.pressure")
        clock.advance(by: .seconds(5))
        await clock.waitForSleepers(count: 1)
        #expect(recorded.withLock { $0 } == step.expected)
      }
      subscription.cancel()
    }

    @Test func `Polls Once Per Interval`() async throws {
      let directory = try TemporaryDirectory()
      let file = try directory.write(Self.psi(some: 0, full: 0), to: "memory.pressure")
      let clock = ManualClock()
      let source = LinuxMemoryPressureSource(filePaths: [file], interval: .seconds(5), clock: clock)
      let recorded = Lock([MemoryPressure]())
      let subscription = source.subscribe { pressure in recorded.withLock { $0.append(pressure) } }
      await clock.waitForSleepers(count: 1)

      try directory.write(Self.psi(some: 45, full: 0), to: "memory.pressure")
      clock.advance(by: .seconds(4))
      await clock.waitForSleepers(count: 1)
      #expect(recorded.withLock { $0 } == [])

      clock.advance(by: .seconds(1))
      await clock.waitForSleepers(count: 1)
      #expect(recorded.withLock { $0 } == [.critical])
      subscription.cancel()
    }

    @Test func `Missing Or Garbage Files Send No Events`() async throws {
      let directory = try TemporaryDirectory()
      let file = directory.path("memory.pressure")
      let clock = ManualClock()
      let source = LinuxMemoryPressureSource(filePaths: [file], interval: .seconds(5), clock: clock)
      let recorded = Lock([MemoryPressure]())
      let subscription = source.subscribe { pressure in recorded.withLock { $0.append(pressure) } }
      await clock.waitForSleepers(count: 1)

      clock.advance(by: .seconds(5))
      await clock.waitForSleepers(count: 1)
      #expect(recorded.withLock { $0 } == [])

      try directory.write("some avg10=garbage\n", to: "memory.pressure")
      clock.advance(by: .seconds(5))
      await clock.waitForSleepers(count: 1)
      #expect(recorded.withLock { $0 } == [])

      // NB: A file that appears later is picked up, and a later bad read keeps the last severity.
      try directory.write(Self.psi(some: 12, full: 0), to: "memory.pressure")
      clock.advance(by: .seconds(5))
      await clock.waitForSleepers(count: 1)
      #expect(recorded.withLock { $0 } == [.warning])

      try directory.write("some avg10=1", to: "memory.pressure")
      try directory.write("some avg1", to: "memory.pressure")
      clock.advance(by: .seconds(5))
      await clock.waitForSleepers(count: 1)
      #expect(recorded.withLock { $0 } == [.warning])
      subscription.cancel()
    }

    @Test func `Every Subscriber Hears Changes And The Last One Stops Polling`() async throws {
      let directory = try TemporaryDirectory()
      let file = try directory.write(Self.psi(some: 0, full: 0), to: "memory.pressure")
      let clock = ManualClock()
      let source = LinuxMemoryPressureSource(filePaths: [file], interval: .seconds(5), clock: clock)
      let first = Lock([MemoryPressure]())
      let second = Lock([MemoryPressure]())
      let firstSubscription = source.subscribe { pressure in first.withLock { $0.append(pressure) }
      }
      let secondSubscription = source.subscribe { pressure in
        second.withLock { $0.append(pressure) }
      }
      await clock.waitForSleepers(count: 1)

      try directory.write(Self.psi(some: 10, full: 0), to: "memory.pressure")
      clock.advance(by: .seconds(5))
      await clock.waitForSleepers(count: 1)
      #expect(first.withLock { $0 } == [.warning])
      #expect(second.withLock { $0 } == [.warning])

      firstSubscription.cancel()
      try directory.write(Self.psi(some: 0, full: 0), to: "memory.pressure")
      clock.advance(by: .seconds(5))
      await clock.waitForSleepers(count: 1)
      #expect(first.withLock { $0 } == [.warning])
      #expect(second.withLock { $0 } == [.warning, .normal])

      secondSubscription.cancel()
      await clock.waitForSleepers(count: 0)

      // NB: A new subscriber starts a new session from normal.
      try directory.write(Self.psi(some: 10, full: 0), to: "memory.pressure")
      let third = Lock([MemoryPressure]())
      let thirdSubscription = source.subscribe { pressure in third.withLock { $0.append(pressure) }
      }
      await clock.waitForSleepers(count: 1)
      #expect(third.withLock { $0 } == [.warning])
      #expect(second.withLock { $0 } == [.warning, .normal])
      thirdSubscription.cancel()
      await clock.waitForSleepers(count: 0)
    }

    @Test func `Drives Default Store Cache Eviction`() async throws {
      let directory = try TemporaryDirectory()
      let file = try directory.write(Self.psi(some: 0, full: 0), to: "memory.pressure")
      let clock = ManualClock()
      let source = LinuxMemoryPressureSource(filePaths: [file], interval: .seconds(5), clock: clock)
      let client = OperationClient(
        storeCache: OperationClient.DefaultStoreCache(memoryPressureSource: source),
        storeCreator: .defaultTesting
      )
      let store = client.store(for: TestQuery())
      await clock.waitForSleepers(count: 1)
      #expect(client.store(with: store.path) != nil)

      try directory.write(Self.psi(some: 30, full: 0), to: "memory.pressure")
      clock.advance(by: .seconds(5))
      await clock.waitForSleepers(count: 1)
      #expect(client.store(with: store.path) == nil)
    }

    private static func psi(some: Double, full: Double) -> String {
      """
      some avg10=\(some) avg60=0.00 avg300=0.00 total=1
      full avg10=\(full) avg60=0.00 avg300=0.00 total=1

      """
    }
  }

  /// A fresh directory under the system's temporary directory, removed when released.
  private final class TemporaryDirectory {
    let url: URL

    init() throws {
      self.url = FileManager.default.temporaryDirectory
        .appendingPathComponent("LinuxMemoryPressureSourceTests-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: self.url, withIntermediateDirectories: true)
    }

    deinit {
      try? FileManager.default.removeItem(at: self.url)
    }

    func path(_ name: String) -> String {
      self.url.appendingPathComponent(name).path
    }

    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
      let path = self.path(name)
      try text.write(toFile: path, atomically: true, encoding: .utf8)
      return path
    }
  }
#endif
