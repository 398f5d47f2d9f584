import OperationDemoSupport
import Testing

@Suite struct `Fleet messages tests` {
  @Test(
    arguments: [
      FleetCommand.fetch(key: "round-a", callers: 1_000),
      .prepareStores(count: 1_000),
      .invalidate(first: 500, count: 500),
      .statistics,
      .latencies,
      .startOutbox,
      .quit,
    ]
  )
  func `A Command Parses Back To Itself`(command: FleetCommand) {
    #expect(FleetCommand(parsing: command.text) == command)
    #expect(FleetCommand(parsing: command.text + "\n") == command)
    #expect(!command.text.contains("\n"))
  }

  @Test func `A Child Line Parses Back To Itself`() {
    var counters = FleetCounters()
    counters.fillsLed = 1
    counters.fillsRefused = 1
    counters.listenerConnections = 2
    let lines: [FleetChildLine] = [
      .ready(instance: "child-1"),
      .started(key: "round-b"),
      .fetched(
        FleetFetchReport(
          key: "round-b",
          values: 998,
          errors: 2,
          valuesByFetcher: ["child-2": 998],
          errorMessages: ["The instance that fetched 'k' for the fleet failed: boom"],
          counters: counters
        )
      ),
      .storesPrepared(count: 1_000),
      .invalidated(count: 500),
      .statistics(counters),
      .latencies(milliseconds: [0.5, 12.25, 130]),
      .outboxStarted,
      .failed("not a command: hello\tworld"),
    ]
    for line in lines {
      #expect(FleetChildLine(parsing: line.text) == line)
      #expect(!line.text.contains("\n"))
    }
  }

  @Test(
    arguments: [
      "",
      "ready",
      "{",
      "{\"unknown\":{}}",
      "fleet-child: child-2: The fleet's listening connection failed",
    ]
  )
  func `Other Lines Are Neither Commands Nor Child Lines`(text: String) {
    #expect(FleetCommand(parsing: text) == nil)
    #expect(FleetChildLine(parsing: text) == nil)
  }

  @Test func `Counters Subtract Field By Field`() {
    var before = FleetCounters()
    before.fillsLed = 1
    before.fillsTakenOver = 1
    before.listenerConnections = 1
    var after = before
    after.fillsLed = 2
    after.fillsFollowed = 3
    after.fillsRefused = 1
    after.invalidationsApplied = 1_000
    var expected = FleetCounters()
    expected.fillsLed = 1
    expected.fillsFollowed = 3
    expected.fillsRefused = 1
    expected.invalidationsApplied = 1_000
    #expect(after.subtracting(before) == expected)
    #expect(after.subtracting(after) == FleetCounters())
  }
}
