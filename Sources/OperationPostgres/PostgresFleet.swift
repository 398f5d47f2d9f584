public import Foundation
@_spi(Warnings) public import OperationCore
public import OperationPersistence
import OperationSynchronization
import PostgresNIO
public import ServiceLifecycle

/// The instances of a service that share one PostgreSQL database, as one fleet: invalidations
/// that reach every instance, one upstream call per key across the fleet, and outboxes woken by
/// notifications.
///
/// ```swift
/// let postgres = PostgresClient(configuration: configuration)
/// let persistence = try await PostgresPersistence(client: postgres)
/// let fleet = try await PostgresFleet(persistence: persistence, instance: "api-1")
/// let cache = try await PersistentQueryCache(storage: persistence)
///
/// let invalidations = fleet.relayInvalidations(of: client)
/// let outbox = try await MutationOutbox(storage: persistence, worker: "api-1")
/// let wakeUps = fleet.wakeOnNotifications(outbox)
///
/// let serviceGroup = ServiceGroup(services: [postgres, fleet, app], logger: logger)
/// try await serviceGroup.run()
/// ```
///
/// ## One listening connection
///
/// ``run()`` holds one connection of the pool and `LISTEN`s on the namespace's channel, where
/// the fleet's writes notify at commit: an invalidation's id, a filled key, an outbox lane.
/// Notifications carry keys, never values (a payload is at most 8,000 bytes), and PostgreSQL
/// does not keep them, so whatever they announce is also in a table: the invalidation log,
/// the fill leases, the outbox. When the connection drops, ``run()`` connects again after a
/// backoff, replays the invalidation log from the last id it applied (none is missed, none
/// applied twice), wakes every outbox and every waiting fill, which read the tables again.
///
/// ## Failures
///
/// Nothing waits forever on the fleet: a follower of a fill waits at most until the leader's
/// lease expires (then it takes the fill over) and never longer than its `maxWait`; a write
/// that the fleet could not make is thrown to the caller or, for an invalidation relayed in the
/// background, reported to `onProblem` and retried.
public final class PostgresFleet: Service, Sendable {
  /// The storage the fleet shares.
  public let persistence: PostgresPersistence

  /// This instance's name, unique in the fleet: the holder of its leases and the origin of its
  /// invalidations.
  public let instance: String

  /// How long a fill's leader holds its lease unless renewed; it renews every third of it.
  public let leaseDuration: OperationDuration

  let clock: any OperationClock & Sendable
  let delayer: any OperationDelayer & Sendable
  let onProblem: @Sendable (Problem) -> Void
  let state: Lock<State>

  /// The calls of ``flushInvalidations()`` and of ``waitUntilListening()``: a wait that its task
  /// cancels returns at once, instead of when a writer or a listener that may be stuck gets there.
  let flushWaiters = Waiters<Void>()
  let listeningWaiters = Waiters<Void>()

  struct State: Sendable {
    var statistics = Statistics()
    var lastAppliedInvalidationID: Int64
    var eventSubscribers = [Int: @Sendable (Event) -> Void]()
    var nextID = 0
    /// The clients whose invalidations this fleet relays and applies.
    var clients = [Int: RelayedClient]()
    /// The outboxes woken by notifications.
    var outboxes = [Int: MutationOutbox]()
    /// The fills waiting for a notification of their key.
    var fillWaiters = [String: [Int: FillWaiter]]()
    /// The invalidations waiting to be written to the log, in order, and whether a task writes.
    var outgoingInvalidations = [String]()
    var isSendingInvalidations = false
    /// The ids of the flushes waiting for the writer, in ``PostgresFleet/flushWaiters``.
    var sendWaiters = [Int]()
    /// The lanes whose outboxes are to be woken (`nil` in the set: every lane), and whether a
    /// task wakes them: notifications of one lane that arrive while it is read are read once.
    var lanesToWake = Set<String?>()
    var isWakingOutboxes = false
    var isListening = false
    /// The ids of the calls waiting for listening to start, in
    /// ``PostgresFleet/listeningWaiters``.
    var listeningWaiters = [Int]()
  }

  /// What went wrong without a caller to throw to.
  public enum Problem: Sendable, CustomStringConvertible {
    /// An invalidation's path has no stable key, so other instances cannot be told of it.
    case unrelayablePath(PersistentKeyError)

    /// The invalidation log could not be written; the invalidations are tried again.
    case relayFailed(String)

    /// The listening connection failed; the fleet connects again.
    case listenerFailed(String)

    /// A description of the problem.
    public var description: String {
      switch self {
      case .unrelayablePath(let error):
        "An invalidation cannot reach the fleet: \(error)"
      case .relayFailed(let error):
        "Invalidations could not be sent to the fleet, and will be sent again: \(error)"
      case .listenerFailed(let error):
        "The fleet's listening connection failed, and connects again: \(error)"
      }
    }
  }

  /// Counts of what this instance did in the fleet.
  public struct Statistics: Hashable, Sendable, Codable {
    /// Invalidations this instance wrote to the log.
    public var invalidationsSent = 0
    /// Invalidations of other instances this instance applied.
    public var invalidationsApplied = 0
    /// The id of the last invalidation read from the log.
    public var lastAppliedInvalidationID: Int64 = 0
    /// Times the listening connection started listening (1 + reconnections).
    public var listenerConnections = 0
    /// Fills this instance led (called upstream for).
    public var fillsLed = 0
    /// Fills this instance took over from a leader whose lease had expired.
    public var fillsTakenOver = 0
    /// Fills answered by another instance's value.
    public var fillsFollowed = 0
    /// Fills answered by a value fresh enough, with no call.
    public var fillsServedFresh = 0
    /// Values this instance fetched as a leader whose lease had been taken over meanwhile:
    /// refused by generation, and never written to the shared cache.
    public var fillsRefused = 0

    /// Creates empty statistics.
    public init() {}
  }

  /// Something that happened in the fleet, as ``subscribe(_:)`` reports it.
  public enum Event: Sendable {
    /// The listening connection listens (again).
    case listening
    /// Another instance's invalidation was applied to this instance's clients.
    case invalidationApplied(id: Int64, prefix: String, sentAt: Date, appliedAt: Date)
    /// This instance's fetched value was refused because another instance took the fill over.
    case fillRefused(key: String, generation: Int64)
  }

  /// Creates a fleet member on `persistence`, which must be the fleet's shared storage.
  ///
  /// - Parameters:
  ///   - persistence: The shared storage.
  ///   - instance: This instance's name, unique in the fleet; by default the host, the process
  ///     and a random suffix.
  ///   - leaseDuration: How long a fill's leader holds its lease unless renewed; 10 seconds by
  ///     default. A leader that dies or stalls loses its fill this long after its last renewal.
  ///   - clock: Dates leases and invalidations.
  ///   - delayer: Waits out leases, renewals and reconnections.
  ///   - onProblem: Told of what fails in the background; reported as an issue by default.
  /// - Throws: ``PostgresStorageError`` when the invalidation log cannot be read.
  public init(
    persistence: PostgresPersistence,
    instance: String? = nil,
    leaseDuration: OperationDuration = .seconds(10),
    clock: any OperationClock & Sendable = SystemTimeClock(),
    delayer: any OperationDelayer & Sendable = ClockDelayer(clock: ContinuousClock()),
    onProblem: @escaping @Sendable (Problem) -> Void = PostgresFleet.reportProblem
  ) async throws {
    self.persistence = persistence
    self.instance = instance ?? Self.defaultInstance()
    self.leaseDuration = leaseDuration
    self.clock = clock
    self.delayer = delayer
    self.onProblem = onProblem
    // NB: Invalidations written before this instance existed concern no store of it.
    let newest = try await persistence.newestInvalidationID()
    var state = State(lastAppliedInvalidationID: newest)
    state.statistics.lastAppliedInvalidationID = newest
    self.state = Lock(state)
  }

  /// Reports a problem as an issue: a test failure under a test runner, a runtime warning
  /// otherwise. The default `onProblem` handler.
  public static let reportProblem: @Sendable (Problem) -> Void = { problem in
    reportFleetProblem(problem.description)
  }

  private static func defaultInstance() -> String {
    let info = ProcessInfo.processInfo
    let suffix = UUID().uuidString.prefix(8)
    return "\(info.hostName)-\(info.processIdentifier)-\(suffix)"
  }

  /// What this instance did in the fleet so far.
  public var statistics: Statistics {
    self.state.withLock { $0.statistics }
  }

  /// Calls `handler` with each event of this instance, with no lock held.
  ///
  /// - Parameter handler: Receives each event.
  /// - Returns: A subscription that ends when cancelled or released.
  public func subscribe(_ handler: @escaping @Sendable (Event) -> Void) -> OperationSubscription {
    let id = self.state.withLock { state in
      defer { state.nextID += 1 }
      state.eventSubscribers[state.nextID] = handler
      return state.nextID
    }
    return OperationSubscription { [weak self] in
      self?.state.withLock { _ = $0.eventSubscribers.removeValue(forKey: id) }
    }
  }

  func send(_ event: Event) {
    let handlers = self.state.withLock { Array($0.eventSubscribers.values) }
    for handler in handlers {
      handler(event)
    }
  }

  /// Returns once ``run()`` listens, or when the calling task is cancelled; notifications sent
  /// before it are not heard, though what they announce is read from the tables when listening
  /// starts.
  public func waitUntilListening() async {
    await self.wait(in: self.listeningWaiters) { state, id in
      guard !state.isListening else { return false }
      state.listeningWaiters.append(id)
      return true
    }
  }

  /// Waits in `waiters` until the fleet resumes the wait's id, or until the task is cancelled.
  ///
  /// - Parameter files: Under the fleet's lock, files the id where the fleet will resume it and
  ///   returns `true`, or returns `false` when there is nothing to wait for.
  func wait(in waiters: Waiters<Void>, files: (inout State, Int) -> Bool) async {
    let id = waiters.makeID()
    let isFiled = self.state.withLock { files(&$0, id) }
    if !isFiled { waiters.resume(id, with: .success(())) }
    // NB: The only error is the task's cancellation, which ends the wait.
    try? await waiters.wait(id)
  }

  // MARK: Listening

  /// Listens to the fleet's notifications until the task is cancelled or the service group
  /// shuts down gracefully, connecting again after each failure.
  ///
  /// - Throws: Nothing but cancellation: failures of the connection are reported to
  ///   `onProblem` and followed by a new connection.
  public func run() async throws {
    await cancelWhenGracefulShutdown {
      var failures = 0
      while !Task.isCancelled {
        do {
          try await self.listen()
          failures = 0
        } catch {
          guard !Task.isCancelled else { break }
          failures += 1
          let reason =
            (error as? PostgresStorageError)
            ?? PostgresStorageError(
              action: "listen for the fleet's notifications",
              underlying: error
            )
          self.onProblem(.listenerFailed(reason.description))
        }
        self.stoppedListening()
        guard !Task.isCancelled else { break }
        try? await self.delayer.delay(for: Self.backoff(afterFailures: failures))
      }
      self.stoppedListening()
    }
  }

  /// The wait before trying again after `failures` failures in a row: 50 ms, doubling, at most
  /// 5 seconds.
  static func backoff(afterFailures failures: Int) -> OperationDuration {
    .milliseconds(min(50 << min(failures, 7), 5_000))
  }

  private func listen() async throws {
    let channel = self.persistence.namespace.channel
    try await self.persistence.client.withConnection { connection in
      try await connection.listen(on: channel) { notifications in
        try await self.startedListening()
        for try await notification in notifications {
          try await self.handle(notification.payload)
        }
      }
    }
  }

  private func startedListening() async throws {
    let waiters = self.state.withLock { state in
      state.isListening = true
      state.statistics.listenerConnections += 1
      defer { state.listeningWaiters.removeAll() }
      return state.listeningWaiters
    }
    // NB: What was announced while nobody listened is in the tables: the log is replayed, the
    // outboxes read every lane, and the waiting fills look at their leases again.
    try await self.applyInvalidations()
    self.wakeAllFills()
    self.scheduleWake(lane: nil)
    for waiter in waiters {
      self.listeningWaiters.resume(waiter, with: .success(()))
    }
    self.send(.listening)
  }

  private func stoppedListening() {
    self.state.withLock { $0.isListening = false }
  }

  private func handle(_ payload: String) async throws {
    let body = String(payload.dropFirst(2))
    switch payload.prefix(2) {
    case "i:": try await self.applyInvalidations()
    case "f:": body.isEmpty ? self.wakeAllFills() : self.wakeFills(key: body)
    case "o:": self.scheduleWake(lane: body.isEmpty ? nil : body)
    default: break
    }
  }

  // MARK: Outboxes

  /// Wakes `outbox` when another instance enqueues, requeues or gives back an entry, and when
  /// the listening connection (re)connects; the outbox reads the lane and delivers what it does
  /// not hold.
  ///
  /// - Parameter outbox: An outbox on this fleet's storage.
  /// - Returns: A subscription that ends when cancelled or released.
  public func wakeOnNotifications(_ outbox: MutationOutbox) -> OperationSubscription {
    let id = self.state.withLock { state in
      defer { state.nextID += 1 }
      state.outboxes[state.nextID] = outbox
      return state.nextID
    }
    return OperationSubscription { [weak self] in
      self?.state.withLock { _ = $0.outboxes.removeValue(forKey: id) }
    }
  }

  /// Wakes the outboxes for `lane` on a task of its own, so that the listening loop goes on with
  /// the next notification; a lane already waiting to be woken is woken once.
  private func scheduleWake(lane: String?) {
    let starts = self.state.withLock { state in
      guard !state.outboxes.isEmpty else { return false }
      state.lanesToWake.insert(lane)
      guard !state.isWakingOutboxes else { return false }
      state.isWakingOutboxes = true
      return true
    }
    guard starts else { return }
    Task {
      while true {
        let lanes = self.state.withLock { state -> Set<String?> in
          defer { state.lanesToWake.removeAll() }
          if state.lanesToWake.isEmpty { state.isWakingOutboxes = false }
          return state.lanesToWake
        }
        guard !lanes.isEmpty else { return }
        if lanes.contains(nil) {
          await self.wakeOutboxes(lane: nil)
        } else {
          for lane in lanes.compactMap({ $0 }).sorted() {
            await self.wakeOutboxes(lane: lane)
          }
        }
      }
    }
  }

  private func wakeOutboxes(lane: String?) async {
    let outboxes = self.state.withLock { Array($0.outboxes.values) }
    for outbox in outboxes {
      // NB: A failed read leaves the entries in the table, where the next wake-up, the next
      // reconnection or a claim's retry finds them; the outbox reported nothing yet, so the
      // fleet does.
      do {
        try await outbox.wake(lane: lane)
      } catch {
        self.onProblem(.listenerFailed(String(reflecting: error)))
      }
    }
  }
}

/// Reports a problem of the fleet as an issue.
func reportFleetProblem(_ message: String) {
  reportWarning(OperationWarning(message))
}
