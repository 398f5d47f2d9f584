public import Foundation
public import OperationCore

/// A durable queue of mutations: each one is written to the database before it runs, delivered
/// in order per lane, kept while offline or after a failure that may pass, and resumed after a
/// restart.
///
/// ```swift
/// let outbox = MutationOutbox(
///   storage: persistence,
///   networkObserver: NWPathMonitorObserver.startingShared()
/// )
/// let createPost = CreatePost().durable(in: outbox, kind: "create-post")
/// outbox.resume()  // Delivers what the last launch left queued.
///
/// try await client.store(for: createPost).mutate(with: draft)
/// ```
///
/// ## Delivery
///
/// - Each entry gets an idempotency key, which the mutation reads as
///   `OperationContext/idempotencyKey` and sends to the server (for example in an
///   `Idempotency-Key` header), so that a delivery repeated after a crash is applied once.
/// - Entries of one lane (by default the mutation's path) are delivered one at a time, oldest
///   first; lanes run side by side.
/// - While the network observer reports no connection, nothing is sent. A connection starts the
///   delivery of every lane.
/// - A failure that `classify` calls retryable keeps the entry queued, with its error and attempt
///   count, and the lane tries it again after `retryDelay`, or at once when the network comes
///   back. After `maxAttempts` attempts, or a permanent failure, the entry is kept as
///   ``Entry/Status-swift.enum/failed`` for the app to ``retry(_:)`` or ``discard(_:)``, and the
///   lane goes on with the next entry.
/// - Every change of an entry (queued, sending, delivered, failed) is one transaction of the
///   storage. An entry that was being sent when the process died is sent again on the next
///   launch, with the same idempotency key.
///
/// Use one outbox per database: two outboxes on one database would both deliver its entries.
public final class MutationOutbox: Sendable {
  /// An entry of the outbox, as stored.
  public struct Entry: Hashable, Sendable, Identifiable, Codable {
    /// Where an entry stands.
    public enum Status: String, Hashable, Sendable, Codable {
      /// Waiting to be sent, or to be sent again.
      case queued
      /// Being sent.
      case inFlight
      /// Failed for good; kept until retried or discarded.
      case failed
    }

    /// The entry's id, in the order of enqueueing.
    public let id: Int64
    /// The kind of mutation, as registered.
    public let kind: String
    /// The lane the entry is delivered in.
    public let lane: String
    /// The key the server deduplicates deliveries by.
    public let idempotencyKey: String
    /// The encoded arguments.
    public let arguments: Data
    /// Where the entry stands.
    public var status: Status
    /// How many times it was sent.
    public var attempts: Int
    /// The description of the last error.
    public var lastError: String?
    /// When it was enqueued.
    public let enqueuedAt: Date
    /// When its status last changed.
    public var updatedAt: Date

    /// Creates an entry.
    public init(
      id: Int64,
      kind: String,
      lane: String,
      idempotencyKey: String,
      arguments: Data,
      status: Status,
      attempts: Int,
      lastError: String?,
      enqueuedAt: Date,
      updatedAt: Date
    ) {
      self.id = id
      self.kind = kind
      self.lane = lane
      self.idempotencyKey = idempotencyKey
      self.arguments = arguments
      self.status = status
      self.attempts = attempts
      self.lastError = lastError
      self.enqueuedAt = enqueuedAt
      self.updatedAt = updatedAt
    }
  }

  /// Whether a failure may pass.
  public enum FailureKind: Hashable, Sendable {
    /// The entry stays queued and is sent again.
    case retryable
    /// The entry is kept as failed.
    case permanent
  }

  /// The outbox's entries, by status.
  public struct Statistics: Hashable, Sendable, Codable {
    /// Entries waiting to be sent.
    public var queued: Int
    /// Entries being sent.
    public var inFlight: Int
    /// Entries that failed for good.
    public var failed: Int
    /// When the oldest entry that is not delivered was enqueued.
    public var oldestEnqueuedAt: Date?

    /// Counts entries by status.
    ///
    /// - Parameter entries: The entries.
    public init(entries: [Entry]) {
      self.queued = entries.count { $0.status == .queued }
      self.inFlight = entries.count { $0.status == .inFlight }
      self.failed = entries.count { $0.status == .failed }
      self.oldestEnqueuedAt = entries.map(\.enqueuedAt).min()
    }
  }

  /// A failure to deliver an entry, as the caller that enqueued it receives it.
  public struct DeliveryError: Error, Sendable, CustomStringConvertible {
    /// The entry, kept as failed.
    public let entry: Entry
    /// The error of the last attempt.
    public let underlying: any Error

    /// A description of the failure.
    public var description: String {
      "The mutation '\(self.entry.kind)' (\(self.entry.idempotencyKey)) failed for good after "
        + "\(self.entry.attempts) attempts: \(self.underlying)"
    }
  }

  /// A change of an entry, as ``subscribe(_:)`` reports it, after the storage has it.
  public enum Event: Hashable, Sendable {
    /// The entry was written, queued.
    case enqueued(Entry)
    /// The entry is being sent.
    case sending(Entry)
    /// The entry was delivered and removed.
    case delivered(Entry)
    /// The entry failed and waits to be sent again.
    case requeued(Entry)
    /// The entry failed for good and is kept.
    case failed(Entry)
    /// The app queued a failed entry again.
    case retried(Entry)
    /// The app removed a failed entry.
    case discarded(Entry)

    /// The entry the event is about.
    public var entry: Entry {
      switch self {
      case .enqueued(let entry), .sending(let entry), .delivered(let entry),
        .requeued(let entry), .failed(let entry), .retried(let entry), .discarded(let entry):
        entry
      }
    }
  }

  /// The error of an entry that failed for good in an earlier delivery, as stored.
  public struct StoredFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stored description of the error.
    public let description: String
  }

  /// An entry whose kind has no registered mutation; it stays queued.
  public struct UnregisteredKindError: Error, Hashable, Sendable {
    /// The kind.
    public let kind: String
  }

  typealias Handler = @Sendable (Data, OperationContext) async throws -> any Sendable

  /// The storage of the entries.
  public let storage: any OperationPersistenceStorage

  private let context: OperationContext
  private let networkObserver: (any NetworkObserver & Sendable)?
  private let clock: any OperationClock & Sendable
  private let delayer: any OperationDelayer & Sendable
  private let retryDelay: OperationBackoffFunction
  private let maxAttempts: Int
  private let classify: @Sendable (any Error) -> FailureKind
  private let state = Lock(State())
  private let networkSubscription = Lock(OperationSubscription.empty)
  // NB: Serializes enqueueing, so that entries join their lane in the order of their ids.
  private let enqueueLock = NSLock()

  private struct State: Sendable {
    var handlers = [String: Handler]()
    var lanes = [String: Lane]()
    var waiters = [String: [CheckedContinuation<any Sendable, any Error>]]()
    var isResumed = false
    var isOnline = true
    var subscribers = [Int: @Sendable (Event) -> Void]()
    var nextSubscriberID = 0
    var nextWakeID = 0
    /// The contexts of the callers waiting for their entries, by idempotency key.
    var callerContexts = [String: OperationContext]()
  }

  private struct Lane: Sendable {
    var queue = [Entry]()
    var isDelivering = false
    /// Resumes the wait between retries; the network's return resumes it early.
    var wake: (id: Int, continuation: CheckedContinuation<Void, Never>)?
  }

  /// Creates an outbox on `storage`; call ``resume()`` to start delivering.
  ///
  /// - Parameters:
  ///   - storage: The storage of the entries.
  ///   - context: The context of deliveries that no caller waits for, such as those a restart
  ///     resumes; pass the client's default context, so that mutations read what they expect
  ///     from it. A delivery that a caller waits for runs with the caller's context.
  ///   - networkObserver: Tells when the network is back; without one the outbox sends at once.
  ///   - clock: Dates the entries.
  ///   - delayer: Waits between attempts.
  ///   - retryDelay: The wait before attempt *n* + 1 after a retryable failure.
  ///   - maxAttempts: The attempts after which a retryable failure counts as permanent.
  ///   - classify: Whether a failure may pass; retryable by default, except
  ///     ``PermanentMutationFailure`` errors.
  public init(
    storage: any OperationPersistenceStorage,
    context: OperationContext = OperationContext(),
    networkObserver: (any NetworkObserver & Sendable)? = nil,
    clock: any OperationClock & Sendable = SystemTimeClock(),
    delayer: any OperationDelayer & Sendable = ClockDelayer(clock: ContinuousClock()),
    retryDelay: OperationBackoffFunction = .exponential(.seconds(1)),
    maxAttempts: Int = 10,
    classify: @escaping @Sendable (any Error) -> FailureKind = MutationOutbox.defaultClassify
  ) {
    self.storage = storage
    self.context = context
    self.networkObserver = networkObserver
    self.clock = clock
    self.delayer = delayer
    self.retryDelay = retryDelay
    self.maxAttempts = max(1, maxAttempts)
    self.classify = classify
  }

  deinit {
    self.networkSubscription.withLock { $0 }.cancel()
  }

  /// Retryable, except for errors that conform to ``PermanentMutationFailure``.
  public static let defaultClassify: @Sendable (any Error) -> FailureKind = { error in
    error is any PermanentMutationFailure ? .permanent : .retryable
  }

  // MARK: Registration

  /// Registers how to deliver entries of `kind`: by running `mutation` with their arguments.
  ///
  /// Register every kind before ``resume()``, so that entries left by the last launch find
  /// their mutation. `MutationRequest/durable(in:kind:lane:)` registers its mutation.
  ///
  /// - Parameters:
  ///   - mutation: The mutation.
  ///   - kind: The name the entries are stored under; keep it stable across releases.
  public func register<Mutation: MutationRequest & Sendable>(_ mutation: Mutation, kind: String)
  where Mutation.Arguments: Codable {
    let handler: Handler = { data, context in
      let arguments = try JSONDecoder().decode(Mutation.Arguments.self, from: data)
      return try await mutation.mutate(
        isolation: nil,
        with: arguments,
        in: context,
        with: OperationContinuation { _, _ in }
      )
    }
    let isResumed = self.state.withLock { state in
      state.handlers[kind] = handler
      return state.isResumed
    }
    // NB: Lanes that stopped at an entry of this kind go on.
    if isResumed { self.startLanes() }
  }

  // MARK: Resuming

  /// Loads the entries left by the last launch and starts delivering; call it once every kind is
  /// registered. Later calls do nothing.
  ///
  /// - Throws: The storage's error.
  public func resume() throws {
    let entries = try self.storage.outboxEntries()
    let isFirst = self.state.withLock { state -> Bool in
      guard !state.isResumed else { return false }
      state.isResumed = true
      // NB: Entries enqueued before `resume()` are in their lanes already.
      for entry in entries where entry.status != .failed {
        guard !(state.lanes[entry.lane]?.queue.contains { $0.id == entry.id } ?? false) else {
          continue
        }
        var entry = entry
        entry.status = .queued
        state.lanes[entry.lane, default: Lane()].queue.append(entry)
      }
      for lane in state.lanes.keys {
        state.lanes[lane]?.queue.sort { $0.id < $1.id }
      }
      state.isOnline = self.networkObserver.map { $0.currentStatus == .connected } ?? true
      return true
    }
    guard isFirst else { return }
    if let networkObserver {
      let subscription = networkObserver.subscribe { [weak self] status in
        self?.networkChanged(to: status)
      }
      self.networkSubscription.withLock { $0 = subscription }
    }
    self.startLanes()
  }

  // MARK: Enqueueing

  /// Writes an entry to the storage and returns it; it is delivered once the outbox is resumed.
  ///
  /// - Parameters:
  ///   - kind: The registered kind.
  ///   - arguments: The arguments.
  ///   - lane: The lane.
  ///   - idempotencyKey: The key; a new UUID by default. Enqueueing a key that is already in
  ///     the outbox returns its entry.
  /// - Returns: The entry.
  /// - Throws: The encoding's or the storage's error.
  @discardableResult
  public func enqueue(
    kind: String,
    arguments: some Encodable,
    lane: String,
    idempotencyKey: String = UUID().uuidString
  ) throws -> Entry {
    let data = try JSONEncoder().encode(arguments)
    return try self.enqueue(kind: kind, data: data, lane: lane, idempotencyKey: idempotencyKey)
  }

  private func enqueue(
    kind: String,
    data: Data,
    lane: String,
    idempotencyKey: String
  ) throws -> Entry {
    let (entry, isNew, starts) = try self.enqueueLock.withLock {
      let entry = try self.storage.enqueueOutboxEntry(
        kind: kind,
        lane: lane,
        idempotencyKey: idempotencyKey,
        arguments: data,
        at: self.clock.now()
      )
      let (isNew, starts) = self.state.withLock { state -> (Bool, Bool) in
        guard entry.status != .failed,
          !(state.lanes[lane]?.queue.contains { $0.id == entry.id } ?? false)
        else { return (false, false) }
        state.lanes[lane, default: Lane()].queue.append(entry)
        return (true, state.isResumed)
      }
      return (entry, isNew, starts)
    }
    // NB: Subscribers are the app's code; they hear of the entry after the locks are released.
    if isNew { self.send(.enqueued(entry)) }
    if starts { self.startLane(lane) }
    return entry
  }

  /// Enqueues an entry and waits for its delivery.
  ///
  /// The delivery runs with `context`. Enqueueing a key whose entry failed for good ends the wait
  /// at once with that failure. Cancelling the caller stops the wait, not the entry: it stays
  /// queued and is delivered.
  func enqueueAndWait(
    kind: String,
    data: Data,
    lane: String,
    idempotencyKey key: String,
    context: OperationContext
  ) async throws -> any Sendable {
    // NB: A caller cancelled before its entry is written makes no entry.
    try Task.checkCancellation()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        // NB: The waiter is registered before the entry exists, so a delivery that follows the
        // write at once finds it.
        self.state.withLock { state in
          state.waiters[key, default: []].append(continuation)
          state.callerContexts[key] = context
        }
        do {
          let entry = try self.enqueue(kind: kind, data: data, lane: lane, idempotencyKey: key)
          if entry.status == .failed {
            let error = StoredFailure(description: entry.lastError ?? "unknown error")
            self.resumeWaiters(
              of: key,
              with: .failure(DeliveryError(entry: entry, underlying: error))
            )
          }
        } catch {
          self.resumeWaiters(of: key, with: .failure(error))
        }
        // NB: A cancellation that arrived before the waiter was registered found nothing to
        // resume; the entry is written, only the wait ends.
        if Task.isCancelled {
          self.resumeWaiters(of: key, with: .failure(CancellationError()))
        }
      }
    } onCancel: {
      self.resumeWaiters(of: key, with: .failure(CancellationError()))
    }
  }

  private func resumeWaiters(of key: String, with result: Result<any Sendable, any Error>) {
    let waiters =
      self.state.withLock { state -> [CheckedContinuation<any Sendable, any Error>]? in
        state.callerContexts.removeValue(forKey: key)
        return state.waiters.removeValue(forKey: key)
      } ?? []
    for waiter in waiters {
      waiter.resume(with: result)
    }
  }

  // MARK: Inspecting and managing

  /// Calls `handler` with every change of an entry, once the storage has it.
  ///
  /// Changes of different lanes may arrive concurrently; the changes of one entry arrive in
  /// order.
  ///
  /// - Parameter handler: Receives the changes.
  /// - Returns: A subscription that ends when cancelled or released.
  public func subscribe(_ handler: @escaping @Sendable (Event) -> Void) -> OperationSubscription {
    let id = self.state.withLock { state in
      defer { state.nextSubscriberID += 1 }
      state.subscribers[state.nextSubscriberID] = handler
      return state.nextSubscriberID
    }
    return OperationSubscription { [weak self] in
      self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
    }
  }

  private func send(_ event: Event) {
    let handlers = self.state.withLock { Array($0.subscribers.values) }
    for handler in handlers {
      handler(event)
    }
  }

  /// Every entry in the storage, oldest first.
  ///
  /// - Returns: The entries.
  /// - Throws: The storage's error.
  public func entries() throws -> [Entry] {
    try self.storage.outboxEntries()
  }

  /// The entries by status, and the age of the oldest.
  ///
  /// - Returns: The statistics.
  /// - Throws: The storage's error.
  public func statistics() throws -> Statistics {
    Statistics(entries: try self.storage.outboxEntries())
  }

  /// Queues a failed entry again, at the end of its lane, with its attempts reset.
  ///
  /// - Parameter entry: The entry.
  /// - Throws: The storage's error.
  public func retry(_ entry: Entry) throws {
    var entry = entry
    entry.status = .queued
    entry.attempts = 0
    entry.updatedAt = self.clock.now()
    try self.storage.updateOutboxEntry(entry)
    let starts = self.state.withLock { state -> Bool in
      state.lanes[entry.lane, default: Lane()].queue.append(entry)
      return state.isResumed
    }
    self.send(.retried(entry))
    if starts { self.startLane(entry.lane) }
  }

  /// Removes an entry that failed for good.
  ///
  /// - Parameter entry: The entry.
  /// - Throws: The storage's error.
  public func discard(_ entry: Entry) throws {
    try self.storage.removeOutboxEntry(id: entry.id)
    self.send(.discarded(entry))
  }

  // MARK: Delivering

  private func networkChanged(to status: NetworkConnectionStatus) {
    let (wakes, starts) = self.state.withLock {
      state -> ([CheckedContinuation<Void, Never>], Bool) in
      let wasOnline = state.isOnline
      state.isOnline = status == .connected
      guard state.isOnline, !wasOnline else { return ([], false) }
      var wakes = [CheckedContinuation<Void, Never>]()
      for lane in state.lanes.keys {
        if let wake = state.lanes[lane]?.wake {
          wakes.append(wake.continuation)
          state.lanes[lane]?.wake = nil
        }
      }
      return (wakes, true)
    }
    for wake in wakes {
      wake.resume()
    }
    if starts { self.startLanes() }
  }

  private func startLanes() {
    let lanes = self.state.withLock { Array($0.lanes.keys) }
    for lane in lanes {
      self.startLane(lane)
    }
  }

  private func startLane(_ lane: String) {
    let starts = self.state.withLock { state -> Bool in
      guard state.isResumed, state.isOnline, let current = state.lanes[lane],
        !current.isDelivering, !current.queue.isEmpty
      else { return false }
      state.lanes[lane]?.isDelivering = true
      return true
    }
    guard starts else { return }
    Task.detached { [self] in await self.deliver(lane: lane) }
  }

  private func deliver(lane: String) async {
    while let (entry, handler) = self.nextEntry(in: lane) {
      guard let handler else {
        // NB: Nothing can deliver the entry until its kind is registered; the lane waits.
        self.resumeWaiters(
          of: entry.idempotencyKey,
          with: .failure(UnregisteredKindError(kind: entry.kind))
        )
        self.stopDelivering(lane)
        return
      }
      var sending = entry
      sending.status = .inFlight
      sending.attempts += 1
      sending.updatedAt = self.clock.now()
      guard self.persist(sending) else {
        self.stopDelivering(lane)
        return
      }
      self.send(.sending(sending))
      var context =
        self.state.withLock { $0.callerContexts[entry.idempotencyKey] } ?? self.context
      context.idempotencyKey = entry.idempotencyKey
      context.outboxEntry = sending
      do {
        let value = try await handler(entry.arguments, context)
        do {
          try self.storage.removeOutboxEntry(id: entry.id)
        } catch {
          self.stopDelivering(lane)
          return
        }
        self.dequeue(entry, from: lane)
        self.send(.delivered(sending))
        self.resumeWaiters(of: entry.idempotencyKey, with: .success(value))
      } catch {
        var failed = sending
        failed.lastError = String(describing: error)
        failed.updatedAt = self.clock.now()
        let isPermanent =
          self.classify(error) == .permanent || failed.attempts >= self.maxAttempts
        failed.status = isPermanent ? .failed : .queued
        guard self.persist(failed) else {
          self.stopDelivering(lane)
          return
        }
        if isPermanent {
          self.dequeue(entry, from: lane)
          self.send(.failed(failed))
          self.resumeWaiters(
            of: entry.idempotencyKey,
            with: .failure(DeliveryError(entry: failed, underlying: error))
          )
        } else {
          self.replaceHead(with: failed, in: lane)
          self.send(.requeued(failed))
          guard await self.waitBeforeRetry(lane: lane, attempt: failed.attempts) else { return }
        }
      }
    }
  }

  private func nextEntry(in lane: String) -> (Entry, Handler?)? {
    self.state.withLock { state in
      guard state.isOnline, let entry = state.lanes[lane]?.queue.first else {
        state.lanes[lane]?.isDelivering = false
        return nil
      }
      return (entry, state.handlers[entry.kind])
    }
  }

  private func persist(_ entry: Entry) -> Bool {
    do {
      try self.storage.updateOutboxEntry(entry)
      return true
    } catch {
      return false
    }
  }

  private func dequeue(_ entry: Entry, from lane: String) {
    self.state.withLock { state in
      state.lanes[lane]?.queue.removeAll { $0.id == entry.id }
    }
  }

  private func replaceHead(with entry: Entry, in lane: String) {
    self.state.withLock { state in
      if let index = state.lanes[lane]?.queue.firstIndex(where: { $0.id == entry.id }) {
        state.lanes[lane]?.queue[index] = entry
      }
    }
  }

  private func stopDelivering(_ lane: String) {
    self.state.withLock { $0.lanes[lane]?.isDelivering = false }
  }

  /// Waits out the retry delay, or until the network comes back; returns whether to go on.
  private func waitBeforeRetry(lane: String, attempt: Int) async -> Bool {
    let delay = self.retryDelay(attempt)
    let delayer = self.delayer
    let id = self.state.withLock { state in
      defer { state.nextWakeID += 1 }
      return state.nextWakeID
    }
    let waiting = Task.detached { try? await delayer.delay(for: delay) }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      self.state.withLock { $0.lanes[lane]?.wake = (id, continuation) }
      Task.detached { [self] in
        await waiting.value
        // NB: Only this wait's own continuation: the network may have ended it already, and the
        // lane may be waiting again, for a later retry.
        let wake = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
          guard let wake = state.lanes[lane]?.wake, wake.id == id else { return nil }
          state.lanes[lane]?.wake = nil
          return wake.continuation
        }
        wake?.resume()
      }
    }
    waiting.cancel()
    return true
  }
}

/// An error that no retry can fix, such as a validation error from the server: a
/// ``MutationOutbox`` keeps the entry as failed instead of sending it again.
public protocol PermanentMutationFailure: Error {}

// MARK: - Context

extension OperationContext {
  /// The idempotency key of the outbox entry being delivered; `nil` outside an outbox delivery.
  ///
  /// Send it to the server, for example as an `Idempotency-Key` header, so that a delivery
  /// repeated after a crash is applied once.
  public var idempotencyKey: String? {
    get { self[IdempotencyKeyKey.self] }
    set { self[IdempotencyKeyKey.self] = newValue }
  }

  /// The outbox entry being delivered, with its attempt count; `nil` outside an outbox delivery.
  public var outboxEntry: MutationOutbox.Entry? {
    get { self[OutboxEntryKey.self] }
    set { self[OutboxEntryKey.self] = newValue }
  }

  private enum IdempotencyKeyKey: Key {
    static let defaultValue: String? = nil
  }

  private enum OutboxEntryKey: Key {
    static let defaultValue: MutationOutbox.Entry? = nil
  }
}
