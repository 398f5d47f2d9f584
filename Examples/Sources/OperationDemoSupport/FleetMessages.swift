import Foundation

/// A command that the fleet test (`operation-demo fleet-test`) writes to a child's standard
/// input, one JSON object per line.
///
/// ```swift
/// FleetCommand.fetch(key: "round-a", callers: 1_000).text
/// // {"fetch":{"callers":1000,"key":"round-a"}}
/// FleetCommand(parsing: #"{"statistics":{}}"#)  // .statistics
/// ```
public enum FleetCommand: Codable, Hashable, Sendable {
  /// Runs `callers` concurrent fetches of the coalesced query of `key`, through one client.
  case fetch(key: String, callers: Int)
  /// Creates the stores of the invalidation round's `count` paths, unfetched.
  case prepareStores(count: Int)
  /// Invalidates the paths `first..<first + count` of the invalidation round, in order.
  case invalidate(first: Int, count: Int)
  /// Reports the fleet's statistics and how many of the prepared stores are invalidated.
  case statistics
  /// Reports the propagation latencies of the invalidations applied so far.
  case latencies
  /// Starts the child's mutation outbox on the shared storage.
  case startOutbox
  /// Ends the child.
  case quit

  /// The line, without its newline.
  public var text: String {
    fleetLine(self)
  }

  /// Parses a line.
  ///
  /// - Parameter line: The line, with or without its newline.
  /// - Returns: `nil` for a line that is not a command.
  public init?(parsing line: String) {
    guard let command = parseFleetLine(Self.self, line) else { return nil }
    self = command
  }
}

/// A line that a child of the fleet test prints on its standard output, one JSON object per
/// line; lines that do not decode (a library's messages) are not the child's.
///
/// ```swift
/// FleetChildLine.started(key: "round-a").text  // {"started":{"key":"round-a"}}
/// ```
public enum FleetChildLine: Codable, Hashable, Sendable {
  /// The child runs: its fleet listens and its client relays invalidations.
  case ready(instance: String)
  /// Every fetch of `key` is started, and the child's store is loading.
  case started(key: String)
  /// Every fetch of a key ended.
  case fetched(FleetFetchReport)
  /// The invalidation round's stores exist.
  case storesPrepared(count: Int)
  /// The invalidations were made (and written to the fleet's log).
  case invalidated(count: Int)
  /// The fleet's counters.
  case statistics(FleetCounters)
  /// The propagation latencies, in milliseconds, of the invalidations applied so far.
  case latencies(milliseconds: [Double])
  /// The child's outbox delivers.
  case outboxStarted
  /// A command failed.
  case failed(String)

  /// The line, without its newline.
  public var text: String {
    fleetLine(self)
  }

  /// Parses a line.
  ///
  /// - Parameter line: The line, with or without its newline.
  /// - Returns: `nil` for a line that is not one of the child's.
  public init?(parsing line: String) {
    guard let childLine = parseFleetLine(Self.self, line) else { return nil }
    self = childLine
  }
}

/// How the concurrent fetches of one key ended in one child.
public struct FleetFetchReport: Codable, Hashable, Sendable {
  /// The key.
  public var key: String
  /// The fetches that returned a value.
  public var values: Int
  /// The fetches that threw.
  public var errors: Int
  /// The instances that fetched the values from upstream, with the number of fetches that got
  /// each one's value.
  public var valuesByFetcher: [String: Int]
  /// The distinct errors' descriptions.
  public var errorMessages: [String]
  /// How the fleet's counters changed while the fetches ran.
  public var counters: FleetCounters

  /// Creates a report.
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - values: The fetches that returned a value.
  ///   - errors: The fetches that threw.
  ///   - valuesByFetcher: The values' upstream fetchers, with their counts.
  ///   - errorMessages: The distinct errors.
  ///   - counters: How the fleet's counters changed while the fetches ran.
  public init(
    key: String,
    values: Int,
    errors: Int,
    valuesByFetcher: [String: Int],
    errorMessages: [String],
    counters: FleetCounters
  ) {
    self.key = key
    self.values = values
    self.errors = errors
    self.valuesByFetcher = valuesByFetcher
    self.errorMessages = errorMessages
    self.counters = counters
  }
}

/// The counters of one instance of the fleet (a mirror of `PostgresFleet.Statistics`, which this
/// module does not import), and how many of its prepared stores are invalidated.
public struct FleetCounters: Codable, Hashable, Sendable {
  /// Invalidations written to the log.
  public var invalidationsSent = 0
  /// Other instances' invalidations applied.
  public var invalidationsApplied = 0
  /// Times the listening connection started listening.
  public var listenerConnections = 0
  /// Fills led.
  public var fillsLed = 0
  /// Fills taken over from an expired lease.
  public var fillsTakenOver = 0
  /// Fills answered by another instance's value.
  public var fillsFollowed = 0
  /// Fills answered by a fresh value, with no call.
  public var fillsServedFresh = 0
  /// Late values refused by generation.
  public var fillsRefused = 0
  /// The invalidation round's stores that are invalidated.
  public var invalidatedStores = 0

  /// Creates counters, all zero.
  public init() {}

  /// The change from `earlier` to these counters, field by field: what happened in between.
  ///
  /// ```swift
  /// let during = after.subtracting(before)  // the fills of one round only
  /// ```
  ///
  /// - Parameter earlier: Counters read before.
  /// - Returns: The differences.
  public func subtracting(_ earlier: FleetCounters) -> FleetCounters {
    var change = FleetCounters()
    change.invalidationsSent = self.invalidationsSent - earlier.invalidationsSent
    change.invalidationsApplied = self.invalidationsApplied - earlier.invalidationsApplied
    change.listenerConnections = self.listenerConnections - earlier.listenerConnections
    change.fillsLed = self.fillsLed - earlier.fillsLed
    change.fillsTakenOver = self.fillsTakenOver - earlier.fillsTakenOver
    change.fillsFollowed = self.fillsFollowed - earlier.fillsFollowed
    change.fillsServedFresh = self.fillsServedFresh - earlier.fillsServedFresh
    change.fillsRefused = self.fillsRefused - earlier.fillsRefused
    change.invalidatedStores = self.invalidatedStores - earlier.invalidatedStores
    return change
  }
}

private func fleetLine(_ value: some Encodable) -> String {
  let encoder = JSONEncoder()
  encoder.outputFormatting = .sortedKeys
  // NB: The messages hold strings, numbers, arrays and dictionaries of them: encoding cannot
  // fail.
  return String(decoding: try! encoder.encode(value), as: UTF8.self)
}

private func parseFleetLine<Value: Decodable>(_ type: Value.Type, _ line: String) -> Value? {
  let trimmed = line.hasSuffix("\n") ? String(line.dropLast()) : line
  guard trimmed.hasPrefix("{") else { return nil }
  return try? JSONDecoder().decode(type, from: Data(trimmed.utf8))
}
