#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// The demo's copy of the library's `OperationClientSnapshot`, decoded from the embedded server's
/// `GET /debug/operations`.
///
/// The demo's pure code does not depend on the library, so it decodes the endpoint's JSON into
/// this mirror of the library's shape: `takenAt`, and per store its path, state type, phase,
/// staleness, subscribers, runs in flight, update counts and dates, error, and history or page
/// count. The phase is kept as text, so that a phase added to the library later decodes too.
///
/// ```swift
/// let snapshot = try InspectorJSON.decoder().decode(InspectorSnapshot.self, from: data)
/// snapshot.stores.map(\.path)
/// ```
public struct InspectorSnapshot: Codable, Hashable, Sendable {
  /// One store, as the library's `OperationStoreSnapshot` reports it.
  public struct Store: Codable, Hashable, Sendable {
    /// The store's path, as its description.
    public var path: String
    /// The type of the store's state, such as `QueryState<Optional<Post>, Error>`.
    public var stateType: String
    /// Where the store stands: `idle`, `loading`, `success`, `failure` or `cancelled`.
    public var phase: String
    /// Whether the value is stale.
    public var isStale: Bool
    /// Whether the store was invalidated and has not succeeded since.
    public var isInvalidated: Bool
    /// The number of subscribers.
    public var subscriberCount: Int
    /// The number of runs created and not finished.
    public var activeTaskCount: Int
    /// How many times the value was updated.
    public var valueUpdateCount: Int
    /// When the value was last updated.
    public var valueLastUpdatedAt: Date?
    /// How many errors were received.
    public var errorUpdateCount: Int
    /// When an error was last received.
    public var errorLastUpdatedAt: Date?
    /// The description of the current error, if any.
    public var errorDescription: String?
    /// The number of attempts in a mutation's history; `nil` for other stores.
    public var historyCount: Int?
    /// The number of pages of a paginated store; `nil` for other stores.
    public var pageCount: Int?

    /// Creates a store's snapshot.
    public init(
      path: String,
      stateType: String,
      phase: String,
      isStale: Bool = false,
      isInvalidated: Bool = false,
      subscriberCount: Int = 0,
      activeTaskCount: Int = 0,
      valueUpdateCount: Int = 0,
      valueLastUpdatedAt: Date? = nil,
      errorUpdateCount: Int = 0,
      errorLastUpdatedAt: Date? = nil,
      errorDescription: String? = nil,
      historyCount: Int? = nil,
      pageCount: Int? = nil
    ) {
      self.path = path
      self.stateType = stateType
      self.phase = phase
      self.isStale = isStale
      self.isInvalidated = isInvalidated
      self.subscriberCount = subscriberCount
      self.activeTaskCount = activeTaskCount
      self.valueUpdateCount = valueUpdateCount
      self.valueLastUpdatedAt = valueLastUpdatedAt
      self.errorUpdateCount = errorUpdateCount
      self.errorLastUpdatedAt = errorLastUpdatedAt
      self.errorDescription = errorDescription
      self.historyCount = historyCount
      self.pageCount = pageCount
    }

    /// When the store last changed: its value's or its error's last update, whichever is later.
    public var lastUpdatedAt: Date? {
      switch (self.valueLastUpdatedAt, self.errorLastUpdatedAt) {
      case (let value?, let error?): max(value, error)
      case (let value?, nil): value
      case (nil, let error?): error
      case (nil, nil): nil
      }
    }
  }

  /// When the snapshot was taken, by the client's clock.
  public var takenAt: Date
  /// The stores, ordered by path.
  public var stores: [Store]

  /// Creates a snapshot.
  ///
  /// - Parameters:
  ///   - takenAt: When it was taken.
  ///   - stores: The stores.
  public init(takenAt: Date, stores: [Store]) {
    self.takenAt = takenAt
    self.stores = stores
  }
}

/// The JSON of the demo's debug endpoint: ISO 8601 dates with milliseconds (so that "0.4s ago"
/// can be told from "0.9s ago"), sorted keys, pretty printed.
///
/// The server encodes the library's snapshot with ``encoder()``; the demo decodes it with
/// ``decoder()``, which also reads ISO 8601 dates without fractional seconds.
public enum InspectorJSON {
  /// The encoder of `GET /debug/operations`.
  public static func encoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.dateEncodingStrategy = .custom { date, encoder in
      var container = encoder.singleValueContainer()
      try container.encode(date.formatted(Self.fractionalStyle))
    }
    return encoder
  }

  /// The decoder of `GET /debug/operations`.
  public static func decoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom { decoder in
      let container = try decoder.singleValueContainer()
      let text = try container.decode(String.self)
      if let date = (try? Self.fractionalStyle.parse(text))
        ?? (try? Self.wholeSecondStyle.parse(text))
      {
        return date
      }
      throw DecodingError.dataCorruptedError(
        in: container,
        debugDescription: "Expected an ISO 8601 date, got '\(text)'."
      )
    }
    return decoder
  }

  private static let fractionalStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
  private static let wholeSecondStyle = Date.ISO8601FormatStyle()
}

/// The demo server's debug endpoints, which fault injection and request accounting leave alone.
public enum DebugEndpoint {
  /// The path of the client's snapshot.
  public static let operationsPath = "/debug/operations"

  /// The path of the client's metrics, in Prometheus' text format.
  public static let metricsPath = "/debug/metrics"

  /// Whether a request path is a debug path: `/debug` or below it.
  ///
  /// - Parameter path: A request's path, without its query.
  public static func isDebug(path: String) -> Bool {
    path == "/debug" || path.hasPrefix("/debug/")
  }

  /// Whether a server request key, such as `GET /debug/operations?x=1`, is a debug request's.
  ///
  /// - Parameter key: The method, a space, then the path and the query.
  public static func isDebug(requestKey key: String) -> Bool {
    guard let space = key.firstIndex(of: " ") else { return false }
    let target = key[key.index(after: space)...]
    let path = target.prefix { $0 != "?" }
    return Self.isDebug(path: String(path))
  }
}
