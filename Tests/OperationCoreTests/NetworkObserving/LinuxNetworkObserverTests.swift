#if os(Linux)
  import Foundation
  import OperationCore
  import OperationTestSupport
  import Testing

  @Suite struct `LinuxNetworkObserver tests` {
    typealias Interface = NetworkInterfaceFixture.Interface

    struct Case: Sendable, CustomTestStringConvertible {
      let name: String
      let interfaces: [Interface]
      let expected: NetworkConnectionStatus

      var testDescription: String { self.name }
    }

    static let cases = [
      Case(name: "No interfaces", interfaces: [], expected: .disconnected),
      Case(
        name: "Only loopback",
        interfaces: [Interface(name: "lo", operstate: "unknown", carrier: "1", flags: "0x9")],
        expected: .disconnected
      ),
      Case(
        name: "Loopback named lo even when up",
        interfaces: [Interface(name: "lo", operstate: "up", carrier: "1", flags: nil)],
        expected: .disconnected
      ),
      Case(
        name: "Loopback by flags under another name",
        interfaces: [Interface(name: "lo2", operstate: "up", carrier: "1", flags: "0x9")],
        expected: .disconnected
      ),
      Case(
        name: "Ethernet up",
        interfaces: [
          Interface(name: "lo", operstate: "unknown", carrier: "1", flags: "0x9"),
          Interface(name: "eth0", operstate: "up", carrier: "1", flags: "0x1003"),
        ],
        expected: .connected
      ),
      Case(
        name: "Ethernet down without a readable carrier",
        interfaces: [Interface(name: "eth0", operstate: "down", carrier: nil, flags: "0x1002")],
        expected: .disconnected
      ),
      Case(
        name: "Down even with carrier",
        interfaces: [Interface(name: "eth0", operstate: "down", carrier: "1", flags: "0x1003")],
        expected: .disconnected
      ),
      Case(
        name: "Dormant interface",
        interfaces: [Interface(name: "wlan0", operstate: "dormant", carrier: "1", flags: "0x1003")],
        expected: .disconnected
      ),
      Case(
        name: "Virtual interface unknown with carrier",
        interfaces: [Interface(name: "wg0", operstate: "unknown", carrier: "1", flags: "0x91")],
        expected: .connected
      ),
      Case(
        name: "Virtual interface unknown without carrier",
        interfaces: [Interface(name: "tun0", operstate: "unknown", carrier: "0", flags: "0x1091")],
        expected: .disconnected
      ),
      Case(
        name: "One of several interfaces up",
        interfaces: [
          Interface(name: "eth0", operstate: "down", carrier: nil, flags: "0x1002"),
          Interface(name: "wlan0", operstate: "up", carrier: "1", flags: "0x1003"),
        ],
        expected: .connected
      ),
      Case(
        name: "Operstate in capitals with spaces",
        interfaces: [Interface(name: "eth0", operstate: "  UP ", carrier: nil, flags: nil)],
        expected: .connected
      ),
      Case(
        name: "Garbage operstate falls back to the carrier",
        interfaces: [Interface(name: "eth0", operstate: "\u{1}??", carrier: "1", flags: nil)],
        expected: .connected
      ),
      Case(
        name: "Missing operstate falls back to the carrier",
        interfaces: [Interface(name: "eth0", operstate: nil, carrier: "0", flags: nil)],
        expected: .disconnected
      ),
      Case(
        name: "Garbage carrier counts as none",
        interfaces: [Interface(name: "eth0", operstate: "unknown", carrier: "yes", flags: nil)],
        expected: .disconnected
      ),
      Case(
        name: "Garbage flags are not loopback",
        interfaces: [Interface(name: "eth0", operstate: "up", carrier: "1", flags: "0xZZ")],
        expected: .connected
      ),
      Case(
        name: "Empty files",
        interfaces: [Interface(name: "eth0", operstate: "", carrier: "", flags: "")],
        expected: .disconnected
      ),
    ]

    @Test(arguments: Self.cases)
    func `Reads The Status Of A Fixture Tree`(case: Case) throws {
      let fixture = try NetworkInterfaceFixture(`case`.interfaces)
      let observer = LinuxNetworkObserver(root: fixture.root, clock: ManualClock())
      #expect(observer.currentStatus == `case`.expected)
      #expect(observer.refresh() == `case`.expected)
    }

    @Test func `A Plain File Among The Interfaces Is Ignored`() throws {
      let fixture = try NetworkInterfaceFixture()
      try fixture.writeFile(named: "bonding_masters", contents: "bond0\n")
      #expect(
        LinuxNetworkObserver(root: fixture.root, clock: ManualClock()).refresh() == .disconnected
      )
      try fixture.write(Interface(name: "eth0", operstate: "up"))
      #expect(
        LinuxNetworkObserver(root: fixture.root, clock: ManualClock()).refresh() == .connected
      )
    }

    @Test func `A Missing Root Directory Falls Back To Connected`() {
      let root = FileManager.default.temporaryDirectory
        .appending(path: "missing-\(UUID().uuidString)", directoryHint: .isDirectory)
      let observer = LinuxNetworkObserver(root: root, clock: ManualClock())
      #expect(observer.currentStatus == .connected)
      #expect(observer.refresh() == .connected)
    }

    @Test func `Refresh Notifies Only On Changes`() throws {
      let fixture = try NetworkInterfaceFixture([Interface(name: "eth0", operstate: "up")])
      let observer = LinuxNetworkObserver(root: fixture.root, clock: ManualClock())
      let statuses = ValueRecorder<NetworkConnectionStatus>()
      let subscription = observer.subscribe { statuses.record($0) }
      #expect(statuses.values == [.connected])

      observer.refresh()
      #expect(statuses.values == [.connected])

      try fixture.write(Interface(name: "eth0", operstate: "down"))
      observer.refresh()
      observer.refresh()
      #expect(statuses.values == [.connected, .disconnected])

      try fixture.write(Interface(name: "eth0", operstate: "up"))
      observer.refresh()
      #expect(statuses.values == [.connected, .disconnected, .connected])
      #expect(observer.currentStatus == .connected)
      subscription.cancel()
      observer.stop()
    }

    @Test func `Polls On Every Tick Of The Clock`() async throws {
      let fixture = try NetworkInterfaceFixture([Interface(name: "eth0", operstate: "up")])
      let clock = ManualClock()
      let observer = LinuxNetworkObserver(
        root: fixture.root,
        clock: clock,
        pollingEvery: .seconds(5)
      )
      let statuses = ValueRecorder<NetworkConnectionStatus>()
      let subscription = observer.subscribe { statuses.record($0) }
      #expect(observer.isRunning)
      await clock.waitForSleeps(count: 1)

      try fixture.write(Interface(name: "eth0", operstate: "down"))
      clock.advance(by: .seconds(4))
      #expect(clock.pendingSleeperCount == 1)
      clock.advance(by: .seconds(1))
      await clock.waitForSleeps(count: 2)
      #expect(observer.currentStatus == .disconnected)

      clock.advance(by: .seconds(5))
      await clock.waitForSleeps(count: 3)
      #expect(statuses.values == [.connected, .disconnected])

      observer.stop()
      #expect(!observer.isRunning)
      #expect(clock.pendingSleeperCount == 0)
      subscription.cancel()
    }

    @Test func `Starting Reads At Once`() async throws {
      let fixture = try NetworkInterfaceFixture([Interface(name: "eth0", operstate: "up")])
      let clock = ManualClock()
      let observer = LinuxNetworkObserver(root: fixture.root, clock: clock)
      #expect(!observer.isRunning)
      try fixture.write(Interface(name: "eth0", operstate: "down"))

      let started = LinuxNetworkObserver.starting(root: fixture.root, clock: clock)
      #expect(started.isRunning)
      await clock.waitForSleeps(count: 1)
      #expect(started.currentStatus == .disconnected)
      // NB: The stopped observer keeps what it read at creation.
      #expect(observer.currentStatus == .connected)
      started.stop()
    }

    @Test func `Releasing A Running Observer Frees It`() async throws {
      let fixture = try NetworkInterfaceFixture()
      let clock = ManualClock()
      var observer: LinuxNetworkObserver? = .starting(root: fixture.root, clock: clock)
      weak let weakObserver = observer
      await clock.waitForSleeps(count: 1)
      observer = nil
      #expect(weakObserver == nil)
      #expect(clock.pendingSleeperCount == 0)
    }

    @Test func `Starting Shared Returns The Running Shared Observer`() {
      let observer = LinuxNetworkObserver.startingShared()
      #expect(observer === LinuxNetworkObserver.shared)
      #expect(observer.isRunning)
    }

    @Test func `Reads This Machine's Interfaces`() {
      let observer = LinuxNetworkObserver(clock: ManualClock())
      let status = observer.refresh()
      #expect([.connected, .disconnected].contains(status))
      #expect(observer.currentStatus == status)
    }
  }
#endif
