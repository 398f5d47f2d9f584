import OperationSynchronization

#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

// MARK: - Snapshots

/// What one store looks like at one moment, as ``OperationClient/snapshot(matching:)`` reports
/// it: a plain `Codable` value, for a debug endpoint, a log or a test.
public struct OperationStoreSnapshot: Hashable, Sendable, Codable {
  /// Where a store stands.
  public enum Phase: String, Hashable, Sendable, Codable {
    /// Never ran and holds no result.
    case idle
    /// A run is scheduled or running.
    case loading
    /// The latest result is a value.
    case success
    /// The latest result is an error.
    case failure
    /// The latest result is a cancellation.
    case cancelled
  }

  /// The store's path, as its description.
  public var path: String
  /// The type of the store's state, such as `QueryState<Post, Error>`.
  public var stateType: String
  /// Where the store stands.
  public var phase: Phase
  /// Whether the value is stale, by the store's stale conditions and invalidation.
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

  /// Creates a snapshot.
  public init(
    path: String,
    stateType: String,
    phase: Phase,
    isStale: Bool,
    isInvalidated: Bool,
    subscriberCount: Int,
    activeTaskCount: Int,
    valueUpdateCount: Int,
    valueLastUpdatedAt: Date?,
    errorUpdateCount: Int,
    errorLastUpdatedAt: Date?,
    errorDescription: String?,
    historyCount: Int?,
    pageCount: Int?
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
}

/// Every store of a client at one moment; see ``OperationClient/snapshot(matching:)``.
public struct OperationClientSnapshot: Hashable, Sendable, Codable {
  /// When the snapshot was taken, by the client's clock.
  public var takenAt: Date
  /// The stores, ordered by path.
  public var stores: [OperationStoreSnapshot]
  /// The circuit breakers that the client's stores run through (see
  /// ``OperationRequest/circuitBreaker(_:)``), in the order the client first saw them.
  public var circuitBreakers: [CircuitBreaker.Snapshot]

  /// Creates a snapshot.
  ///
  /// - Parameters:
  ///   - takenAt: When it was taken.
  ///   - stores: The stores.
  ///   - circuitBreakers: The circuit breakers.
  public init(
    takenAt: Date,
    stores: [OperationStoreSnapshot],
    circuitBreakers: [CircuitBreaker.Snapshot] = []
  ) {
    self.takenAt = takenAt
    self.stores = stores
    self.circuitBreakers = circuitBreakers
  }

  private enum CodingKeys: String, CodingKey {
    case takenAt
    case stores
    case circuitBreakers
  }

  /// Decodes a snapshot; one written before snapshots listed circuit breakers has none.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.takenAt = try container.decode(Date.self, forKey: .takenAt)
    self.stores = try container.decode([OperationStoreSnapshot].self, forKey: .stores)
    self.circuitBreakers =
      try container.decodeIfPresent([CircuitBreaker.Snapshot].self, forKey: .circuitBreakers)
      ?? []
  }
}

extension OperationClient {
  /// A `Codable` picture of the stores whose paths start with `path`: for each, its path, state
  /// type, phase, staleness, subscribers, runs in flight, update counts and dates, error, and
  /// history or page count; and the state of every circuit breaker the client's stores run
  /// through, read at the client's clock.
  ///
  /// ```swift
  /// let json = try JSONEncoder().encode(client.snapshot())
  /// ```
  ///
  /// Each store is read on its own, with no lock of the client held, and its stale conditions
  /// run with no lock held, so a snapshot of a busy client is a set of consistent pictures of its
  /// stores, not one picture of all of them.
  ///
  /// - Parameter path: The prefix; the empty path takes every store.
  /// - Returns: The snapshot, with the stores ordered by path.
  public func snapshot(matching path: OperationPath = OperationPath()) -> OperationClientSnapshot {
    let stores = self.stores(matching: path).map(\.snapshot)
      .sorted { $0.path < $1.path }
    let now = self.defaultContext.operationClock.now()
    return OperationClientSnapshot(
      takenAt: now,
      stores: stores,
      circuitBreakers: self.circuitBreakers.map { $0.snapshot(at: now) }
    )
  }
}

extension OperationStore {
  /// A `Codable` picture of the store; see ``OperationClient/snapshot(matching:)``.
  public var snapshot: OperationStoreSnapshot {
    let (state, runs, isInvalidated, subscribers) = self.lock.withLock {
      ($0.state, $0.runs.runsInFlightCount, $0.runs.isInvalidated, $0.subscribers.count)
    }
    return OperationStoreSnapshot(
      path: self.path.description,
      stateType: typeName(State.self),
      phase: Self.phase(of: state),
      isStale: self.isStale,
      isInvalidated: isInvalidated,
      subscriberCount: subscribers,
      activeTaskCount: runs,
      valueUpdateCount: state.valueUpdateCount,
      valueLastUpdatedAt: state.valueLastUpdatedAt,
      errorUpdateCount: state.errorUpdateCount,
      errorLastUpdatedAt: state.errorLastUpdatedAt,
      errorDescription: state.error.map { String(describing: $0) },
      historyCount: (state as? any _MutationStateProtocol)?.historyCount,
      pageCount: (state as? any _PaginatedStateProtocol)?.pageCount
    )
  }

  private static func phase(of state: State) -> OperationStoreSnapshot.Phase {
    if state.isLoading { return .loading }
    if let error = state.error {
      let errorIsLatest =
        state.valueLastUpdatedAt.map { date in
          state.errorLastUpdatedAt.map { $0 >= date } ?? false
        } ?? true
      if errorIsLatest {
        return error is CancellationError ? .cancelled : .failure
      }
    }
    return state.valueUpdateCount > 0 ? .success : .idle
  }
}

extension _MutationStateProtocol {
  fileprivate var historyCount: Int { self.history.count }
}

extension _PaginatedStateProtocol {
  fileprivate var pageCount: Int { self.currentValue.count }
}
