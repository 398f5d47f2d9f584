// NB: Over 600 lines, on purpose: one class, whose public surface (registering, resuming,
// enqueueing, inspecting and managing entries) and the shell that performs its state machine's
// actions share private state (the storage, the machine's lock, the timers, the claim). Split into
// files, that state would have to be internal to the module. The machine, the types and the
// durable mutations are in files of their own.

public import Foundation
@_spi(Warnings) public import OperationCore
import OperationSynchronization

/// A durable queue of mutations: each one is written to the database before it runs, delivered
/// in order per lane, kept while offline or after a failure that may pass, and resumed after a
/// restart.
///
/// ```swift
/// let outbox = try await MutationOutbox(
///   storage: persistence,
///   networkObserver: NWPathMonitorObserver.startingShared()
/// )
/// let createPost = CreatePost().durable(in: outbox, kind: "create-post")
/// try await outbox.resume()  // Delivers what the last launch left queued.
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
/// - An entry is delivered under a *claim* (see ``OperationPersistenceStorage``): the outbox
///   claims the lane's next entry for its ``worker`` with a lease of `leaseDuration`, renews the
///   lease every third of it while the delivery runs (waiting on the delayer of its `context`),
///   and ends the entry through the claim. Another worker (a second process on a shared
///   database) takes an entry over only once its lease expired, and then the first worker's
///   claim is stale: its late result is refused by the storage, reported
///   (``Event/claimLost(_:error:)`` and `onStorageFailure`), neither retried nor written, and its
///   callers get ``StaleClaimError``. The idempotency key makes the second delivery harmless.
/// - While the network observer reports no connection, nothing is sent. A connection starts the
///   delivery of every lane.
/// - A failure that `classify` calls retryable gives the entry back to its lane, queued, with
///   its error and attempt count, and the lane tries it again after `retryDelay`, or at once
///   when the network comes back. After `maxAttempts` attempts, or a permanent failure, the
///   entry is kept as ``Entry/Status-swift.enum/failed`` for the app to ``retry(_:)`` or
///   ``discard(_:)``, and the lane goes on with the next entry.
/// - Every change of an entry (queued, claimed, delivered, failed) is one transaction of the
///   storage. An entry that was being sent when the process died is sent again on the next
///   launch, with the same idempotency key.
///
/// ## Stopping
///
/// ``shutdown(gracePeriod:)`` stops gracefully: it claims nothing more, refuses new entries,
/// lets deliveries in flight end within the grace period, then cancels the rest, gives their
/// claims back, and releases the storage. ``close()`` stops at once.
///
/// ## When things fail
///
/// - **The storage fails** (a full disk, a lock held past the busy timeout). Writing a new entry
///   throws to the caller: nothing was queued. Once a delivery has ended, its callers are
///   answered at once (a delivered entry *was* delivered), and the write that ends the entry is
///   tried again after `storageRetryDelay`, until it lands; the lane waits for it, so that the
///   storage never keeps an entry behind a later one. A claim that fails is asked again after
///   the same delays. Every failed call is reported to `onStorageFailure` (an issue by default)
///   and to subscribers as ``Event/storageFailed(_:error:)``.
/// - **A second outbox opens the same storage**, in this process or another: its initializer
///   throws ``OutboxClaimedError``, which names the owner, so entries are never delivered twice.
///   The claim ends with the outbox, or with its process (a crash included).
/// - **Two mutation types are registered under one kind**: the second registration is refused
///   and reported, and its runs throw ``KindConflictError`` before anything is written.
///
/// The lanes, claims, retries, timers and waiting callers are a pure state machine, so these
/// rules are tested with generated sequences of events.
public final class MutationOutbox: Sendable {
  typealias Handler = @Sendable (Data, OperationContext) async throws -> any Sendable
  typealias Machine = OutboxStateMachine<Caller, any Sendable>

  /// A caller waiting for its entry, with the context its delivery runs with.
  struct Caller: Sendable {
    let reply: Reply
    let context: OperationContext
  }

  /// The mutation that delivers the entries of a kind.
  private struct Registration: Sendable {
    let type: ErasedOperationType
    let handler: Handler
  }

  /// The storage of the entries.
  public let storage: any OperationPersistenceStorage

  /// Who this outbox is when it claims entries: stored with each claim, so that the storage
  /// tells its leases from another worker's.
  public let worker: String

  /// How long a claim holds its entry unless renewed.
  public let leaseDuration: OperationDuration

  private let context: OperationContext
  private let networkObserver: (any NetworkObserver & Sendable)?
  private let clock: any OperationClock & Sendable
  private let delayer: any OperationDelayer & Sendable
  private let classify: @Sendable (any Error) -> FailureKind
  private let onStorageFailure: @Sendable (Entry, any Error) -> Void
  private let state: Lock<State>
  private let networkSubscription = Lock(OperationSubscription.empty)
  /// Whether this outbox still holds the storage's claim, so that it releases the claim once,
  /// never another outbox's claim of the same storage.
  private let holdsClaim = Lock(true)
  /// The calls of the storage that the machine asks for, run one at a time in order.
  private let storageCalls = SerialCalls()

  private struct State: Sendable {
    var machine: Machine
    var registrations = [String: Registration]()
    var subscribers = [Int: @Sendable (Event) -> Void]()
    var nextSubscriberID = 0
    var nextWaiterID = 0
    /// The tasks that wait out the machine's timers, so that a timer the machine cancels stops
    /// waiting.
    var timerTasks = [Machine.TimerID: Task<Void, Never>]()
    /// The tasks of the deliveries in flight, by entry id, so that a stop cancels them.
    var deliveries = [Int64: Task<Void, Never>]()
    /// Told when no delivery, claim or write of an end is in flight: a graceful stop waits.
    var drainWaiters = [Signal]()
  }

  /// Creates an outbox on `storage`, claiming the storage's outbox for this outbox; call
  /// ``resume()`` to start delivering.
  ///
  /// - Parameters:
  ///   - storage: The storage of the entries.
  ///   - context: The context of deliveries that no caller waits for, such as those a restart
  ///     resumes; pass the client's default context, so that mutations read what they expect
  ///     from it. A delivery that a caller waits for runs with the caller's context. Renewals of
  ///     claims wait on its `operationDelayer`.
  ///   - networkObserver: Tells when the network is back; without one the outbox sends at once.
  ///   - clock: Dates the entries and the leases of claims.
  ///   - delayer: Waits between attempts, and between calls of a failed storage.
  ///   - retryDelay: The wait before attempt *n* + 1 after a retryable failure.
  ///   - maxAttempts: The attempts after which a retryable failure counts as permanent.
  ///   - storageRetryDelay: The wait before the *n* + 1st write of the change that ends an entry
  ///     (its removal after delivery, or its failure for good), or claim, after *n* failed
  ///     ones; never more than 30 seconds.
  ///   - worker: Who this outbox is when it claims entries; by default the process, the host
  ///     and a random suffix. A stable name lets a restarted worker take back its own claims at
  ///     once, before their leases expire.
  ///   - leaseDuration: How long a claim holds its entry unless renewed; 30 seconds by default.
  ///     The outbox renews it every third of it while the delivery runs.
  ///   - classify: Whether a failure may pass; retryable by default, except
  ///     ``PermanentMutationFailure`` errors.
  ///   - onStorageFailure: Told of each call of the storage that fails, and of each claim found
  ///     stale; by default reported as an issue (``reportStorageFailure``).
  /// - Throws: ``OutboxClaimedError`` when another outbox, in this process or another, holds
  ///   the storage's outbox; the storage's error when it cannot be claimed.
  public init(
    storage: any OperationPersistenceStorage,
    context: OperationContext = OperationContext(),
    networkObserver: (any NetworkObserver & Sendable)? = nil,
    clock: any OperationClock & Sendable = SystemTimeClock(),
    delayer: any OperationDelayer & Sendable = ClockDelayer(clock: ContinuousClock()),
    retryDelay: OperationBackoffFunction = .exponential(.seconds(1)),
    maxAttempts: Int = 10,
    storageRetryDelay: OperationBackoffFunction = .exponential(.milliseconds(100)),
    worker: String? = nil,
    leaseDuration: OperationDuration = .seconds(30),
    classify: @escaping @Sendable (any Error) -> FailureKind = MutationOutbox.defaultClassify,
    onStorageFailure: @escaping @Sendable (Entry, any Error) -> Void = MutationOutbox
      .reportStorageFailure
  ) async throws {
    try await storage.claimOutbox(owner: Self.ownerDescription(at: clock.now()))
    self.storage = storage
    self.worker = worker ?? Self.defaultWorker()
    self.leaseDuration = leaseDuration
    self.context = context
    self.networkObserver = networkObserver
    self.clock = clock
    self.delayer = delayer
    self.classify = classify
    self.onStorageFailure = onStorageFailure
    self.state = Lock(
      State(
        machine: Machine(
          retryDelay: retryDelay,
          maxAttempts: maxAttempts,
          storageRetryDelay: storageRetryDelay,
          maxStorageRetryDelay: .seconds(30),
          renewalInterval: leaseDuration / 3
        )
      )
    )
  }

  deinit {
    self.networkSubscription.withLock { $0 }.cancel()
    if self.holdsClaim.withLock({ $0 }) {
      // NB: A deinitializer cannot wait; the release follows at once, on its own task.
      Task { [storage] in await storage.releaseOutbox() }
    }
  }

  private func releaseClaim() async {
    let holds = self.holdsClaim.withLock { holds in
      defer { holds = false }
      return holds
    }
    if holds { await self.storage.releaseOutbox() }
  }

  /// Retryable, except for errors that conform to ``PermanentMutationFailure``.
  public static let defaultClassify: @Sendable (any Error) -> FailureKind = { error in
    error is any PermanentMutationFailure ? .permanent : .retryable
  }

  /// Reports a failed call of the storage, or a stale claim, as an issue: a test failure under
  /// a test runner, a runtime warning otherwise. The default `onStorageFailure` handler.
  public static let reportStorageFailure: @Sendable (Entry, any Error) -> Void = { entry, error in
    if let error = error as? StaleClaimError {
      reportWarning(.outboxClaimLost(entry: entry, error: error))
      return
    }
    reportWarning(
      .outboxStorageFailed(
        change: "change (from status '\(entry.status.rawValue)')",
        entry: entry,
        error: error
      )
    )
  }

  /// How this process describes itself as the owner of an outbox.
  private static func ownerDescription(at date: Date) -> String {
    let info = ProcessInfo.processInfo
    return "process \(info.processIdentifier) on \(info.hostName) since \(date)"
  }

  /// The default ``worker``: the host, the process and a random suffix.
  private static func defaultWorker() -> String {
    let info = ProcessInfo.processInfo
    return "\(info.hostName)/\(info.processIdentifier)/\(UUID().uuidString.prefix(8))"
  }

  /// Stops delivering and releases the storage's outbox, so that another outbox (in this
  /// process or another) can claim it; for a hand-over or an immediate stop.
  ///
  /// Callers still waiting are answered with ``ClosedError``; their entries stay in the
  /// storage, for the next outbox. A delivery in flight ends as usual. An outbox also releases
  /// the storage when it is deinitialized. Later calls do nothing. For a stop that lets
  /// deliveries finish and gives claims back, use ``shutdown(gracePeriod:)``.
  public func close() async {
    self.perform(self.state.withLock { $0.machine.close(with: ClosedError()) })
    self.networkSubscription.withLock { $0 }.cancel()
    await self.releaseClaim()
  }

  /// Stops gracefully: claims no new entry and refuses new ones (``enqueue(kind:arguments:lane:idempotencyKey:)``
  /// and durable mutations throw ``ClosedError``), lets the deliveries in flight end and their
  /// ends be written within `gracePeriod`, then cancels the deliveries left, gives their claims
  /// back (so that another worker takes the entries at once), answers every caller still
  /// waiting with ``ClosedError``, releases the storage's outbox, and returns.
  ///
  /// ```swift
  /// // In a swift-service-lifecycle service's graceful shutdown:
  /// await outbox.shutdown(gracePeriod: .seconds(10))
  /// ```
  ///
  /// The grace period is waited on the outbox's delayer. A delivery that ignores its
  /// cancellation does not hold the return: its claim is given back, and its late result is
  /// ignored (the entry is delivered again by the next worker, with its idempotency key).
  /// Later calls, and calls after ``close()``, return once the storage is released.
  ///
  /// - Parameter gracePeriod: How long deliveries in flight may take to end; `.zero` cancels
  ///   them at once.
  public func shutdown(gracePeriod: OperationDuration) async {
    self.perform(self.state.withLock { $0.machine.stop() })
    let drained = Signal()
    let isDrained = self.state.withLock { state in
      // NB: With no grace period, what is in flight is cancelled at once, without a wait.
      guard state.machine.hasWorkInFlight, gracePeriod > .zero else { return true }
      state.drainWaiters.append(drained)
      return false
    }
    if !isDrained {
      let grace = Task { [delayer] in
        try? await delayer.delay(for: gracePeriod)
        drained.fire()
      }
      await drained.wait()
      grace.cancel()
    }
    self.perform(self.state.withLock { $0.machine.abandon(with: ClosedError()) })
    await self.storageCalls.waitUntilIdle()
    self.networkSubscription.withLock { $0 }.cancel()
    await self.releaseClaim()
  }

  // MARK: Registration

  /// Registers how to deliver entries of `kind`: by running `mutation` with their arguments.
  ///
  /// Register every kind before ``resume()``, so that entries left by the last launch find
  /// their mutation. `MutationRequest/durable(in:kind:lane:)` registers its mutation.
  ///
  /// A kind belongs to one mutation type: registering it again with the same type replaces the
  /// mutation, and registering it with another type is refused and reported (the runs of that
  /// type's durable mutation then throw ``KindConflictError``).
  ///
  /// - Parameters:
  ///   - mutation: The mutation.
  ///   - kind: The name the entries are stored under; keep it stable across releases.
  /// - Returns: Whether the mutation was registered.
  @discardableResult
  public func register<Mutation: MutationRequest & Sendable>(
    _ mutation: Mutation,
    kind: String
  ) -> Bool where Mutation.Arguments: Codable {
    let handler: Handler = { data, context in
      let arguments = try JSONDecoder().decode(Mutation.Arguments.self, from: data)
      return try await mutation.mutate(
        isolation: nil,
        with: arguments,
        in: context,
        with: OperationContinuation { _, _ in }
      )
    }
    let type = ErasedOperationType(base: Mutation.self)
    let conflict = self.state.withLock { state -> ErasedOperationType? in
      if let registered = state.registrations[kind]?.type, registered.base != Mutation.self {
        return registered
      }
      state.registrations[kind] = Registration(type: type, handler: handler)
      return nil
    }
    if let conflict {
      reportWarning(
        .outboxKindAlreadyRegistered(
          kind: kind,
          registeredType: conflict.base,
          newType: Mutation.self
        )
      )
      return false
    }
    let now = self.clock.now()
    self.perform(self.state.withLock { $0.machine.register(kind: kind, now: now) })
    return true
  }

  /// The error of a durable mutation of type `type` whose kind belongs to another type.
  func kindConflict(kind: String, type: any Any.Type) -> KindConflictError? {
    let registered = self.state.withLock { $0.registrations[kind]?.type }
    guard let registered, registered.base != type else { return nil }
    return KindConflictError(
      kind: kind,
      registeredType: _typeName(registered.base, qualified: true),
      mutationType: _typeName(type, qualified: true)
    )
  }

  // MARK: Resuming

  /// Loads the entries left by the last launch and starts delivering; call it once every kind is
  /// registered. Later calls do nothing.
  ///
  /// - Throws: The storage's error.
  public func resume() async throws {
    let entries = try await self.storage.outboxEntries()
    let isOnline = self.networkObserver.map { $0.currentStatus == .connected } ?? true
    let now = self.clock.now()
    let (isFirst, actions) = self.state.withLock { state in
      let wasResumed = state.machine.isResumed
      let actions = state.machine.resume(entries: entries, isOnline: isOnline, now: now)
      return (!wasResumed, actions)
    }
    guard isFirst else { return }
    if let networkObserver {
      let subscription = networkObserver.subscribe { [weak self] status in
        self?.networkChanged(to: status)
      }
      self.networkSubscription.withLock { $0 = subscription }
      // NB: The network may have changed before the subscription.
      self.networkChanged(to: networkObserver.currentStatus)
    }
    self.perform(actions)
  }

  /// Reads the storage's entries of `lane` (of every lane when `nil`) and delivers those this
  /// outbox does not hold yet: entries that another worker enqueued, gave back or requeued on
  /// a shared storage. A fleet's notifications call it (OperationPostgres' `PostgresFleet`);
  /// before ``resume()`` and once stopped it reads nothing.
  ///
  /// - Parameter lane: The lane that changed; `nil` for every lane.
  /// - Throws: The storage's error; the entries stay where they are and a later wake-up or
  ///   claim finds them.
  public func wake(lane: String? = nil) async throws {
    let isListening = self.state.withLock { $0.machine.isResumed && $0.machine.acceptsEnqueues }
    guard isListening else { return }
    let entries =
      if let lane {
        try await self.storage.outboxEntries(inLane: lane)
      } else {
        try await self.storage.outboxEntries()
      }
    let now = self.clock.now()
    self.perform(self.state.withLock { $0.machine.discovered(entries: entries, now: now) })
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
  /// - Throws: ``ClosedError`` once the outbox is shut down or closed; the encoding's or the
  ///   storage's error. Then nothing was queued.
  @discardableResult
  public func enqueue(
    kind: String,
    arguments: some Encodable,
    lane: String,
    idempotencyKey: String = UUID().uuidString
  ) async throws -> Entry {
    let data = try JSONEncoder().encode(arguments)
    return try await self.enqueue(
      kind: kind,
      data: data,
      lane: lane,
      idempotencyKey: idempotencyKey
    )
  }

  private func enqueue(
    kind: String,
    data: Data,
    lane: String,
    idempotencyKey: String
  ) async throws -> Entry {
    let accepts = self.state.withLock { state in
      guard state.machine.acceptsEnqueues else { return false }
      state.machine.beginEnqueue(key: idempotencyKey)
      return true
    }
    guard accepts else { throw ClosedError() }
    let entry: Entry
    do {
      entry = try await self.storage.enqueueOutboxEntry(
        kind: kind,
        lane: lane,
        idempotencyKey: idempotencyKey,
        arguments: data,
        at: self.clock.now()
      )
    } catch {
      self.state.withLock { $0.machine.enqueueFailed(key: idempotencyKey) }
      throw error
    }
    let now = self.clock.now()
    self.perform(self.state.withLock { $0.machine.enqueued(entry, now: now) })
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
    let reply = Reply()
    // NB: The waiter is registered before the entry exists, so a delivery that follows the
    // write at once finds it.
    let id = self.state.withLock { state -> Int? in
      guard state.machine.acceptsWaiters else { return nil }
      defer { state.nextWaiterID += 1 }
      state.machine.addWaiter(
        state.nextWaiterID,
        Caller(reply: reply, context: context),
        forKey: key
      )
      return state.nextWaiterID
    }
    guard let id else { throw ClosedError() }
    return try await withTaskCancellationHandler {
      do {
        _ = try await self.enqueue(kind: kind, data: data, lane: lane, idempotencyKey: key)
      } catch {
        self.perform(self.state.withLock { $0.machine.removeWaiter(id, with: error) })
      }
      return try await reply.wait()
    } onCancel: {
      // NB: A cancellation before the entry is written ends the wait only; the entry is written.
      self.perform(self.state.withLock { $0.machine.removeWaiter(id, with: CancellationError()) })
    }
  }

  // MARK: Inspecting and managing

  /// Calls `handler` with every change of an entry, once the storage has it (or failed to
  /// write it: ``Event/storageFailed(_:error:)``).
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
  public func entries() async throws -> [Entry] {
    try await self.storage.outboxEntries()
  }

  /// The entries by status, and the age of the oldest.
  ///
  /// - Returns: The statistics.
  /// - Throws: The storage's error.
  public func statistics() async throws -> Statistics {
    Statistics(entries: try await self.storage.outboxEntries())
  }

  /// Queues a failed entry again, at the end of its lane, with its attempts reset; the storage
  /// gives it a new id.
  ///
  /// - Parameter entry: The entry.
  /// - Returns: The queued entry; `nil` when the entry is not failed in the storage (another
  ///   worker retried or discarded it), and then nothing changed.
  /// - Throws: The storage's error; then the entry stays failed.
  @discardableResult
  public func retry(_ entry: Entry) async throws -> Entry? {
    guard
      let queued = try await self.storage.requeueFailedOutboxEntry(
        id: entry.id,
        at: self.clock.now()
      )
    else { return nil }
    let now = self.clock.now()
    self.perform(self.state.withLock { $0.machine.retried(queued, now: now) })
    return queued
  }

  /// Removes an entry that failed for good.
  ///
  /// - Parameter entry: The entry.
  /// - Throws: ``EntryNotFailedError`` when the entry is not failed in the storage (it is
  ///   queued, being delivered, or gone); the storage's error. Then nothing was removed.
  public func discard(_ entry: Entry) async throws {
    guard try await self.storage.removeFailedOutboxEntry(id: entry.id) else {
      throw EntryNotFailedError(entry: entry)
    }
    self.send(.discarded(entry))
  }

  // MARK: Performing the machine's actions

  private func networkChanged(to status: NetworkConnectionStatus) {
    let now = self.clock.now()
    self.perform(
      self.state.withLock { $0.machine.networkChanged(isOnline: status == .connected, now: now) }
    )
  }

  /// Performs the machine's actions in order, with no lock held. Calls of the storage run one at
  /// a time, in the order they are asked for, and feed their outcomes to the machine, whose
  /// actions follow.
  private func perform(_ actions: [Machine.Action]) {
    for action in actions {
      switch action {
      case .claim(let lane):
        self.storageCalls.schedule { [self] in await self.claim(lane: lane) }
      case .renew(let claim):
        // NB: Not behind the other calls: a renewal that waited for a busy queue could land
        // after its lease expired. It is fenced by its generation, and the machine ignores the
        // answer of a renewal whose delivery ended meanwhile, so its order does not matter.
        Task { [self] in await self.renew(claim) }
      case .write(let write):
        self.storageCalls.schedule { [self] in
          let error = await self.write(write)
          let now = self.clock.now()
          self.perform(self.state.withLock { $0.machine.written(write, error: error, now: now) })
        }
      case .deliver(let claim, let caller):
        self.deliver(claim, context: caller?.context ?? self.context)
      case .cancelDelivery(let id):
        self.state.withLock { $0.deliveries.removeValue(forKey: id) }?.cancel()
      case .startTimer(let timer, let delay):
        self.startTimer(timer, delay: delay, on: self.delayer)
      case .startRenewalTimer(let timer, let delay):
        self.startTimer(timer, delay: delay, on: self.context.operationDelayer)
      case .cancelTimer(let timer):
        self.state.withLock { $0.timerTasks.removeValue(forKey: timer) }?.cancel()
      case .resume(let callers, let outcome):
        let result: Result<any Sendable, any Error> =
          switch outcome {
          case .delivered(let value): .success(value)
          case .failed(let entry, let error):
            .failure(DeliveryError(entry: entry, underlying: error))
          case .error(let error): .failure(error)
          }
        for caller in callers {
          caller.reply.resume(with: result)
        }
      case .notify(let event):
        self.send(event)
      case .reportStorageFailure(let entry, let error):
        self.onStorageFailure(entry, error)
        if !(error is StaleClaimError) {
          self.send(.storageFailed(entry, error: String(describing: error)))
        }
      }
    }
    let drained = self.state.withLock { state -> [Signal] in
      guard !state.drainWaiters.isEmpty, !state.machine.hasWorkInFlight else { return [] }
      defer { state.drainWaiters.removeAll() }
      return state.drainWaiters
    }
    for signal in drained {
      signal.fire()
    }
  }

  private func claim(lane: String) async {
    let now = self.clock.now()
    let leaseUntil = now.addingTimeInterval(self.leaseDuration.timeInterval)
    do {
      let result = try await self.storage.claimNextOutboxEntry(
        inLane: lane,
        worker: self.worker,
        at: now,
        leaseUntil: leaseUntil
      )
      let now = self.clock.now()
      self.perform(self.state.withLock { $0.machine.claimed(lane: lane, result, now: now) })
    } catch {
      let now = self.clock.now()
      self.perform(
        self.state.withLock { $0.machine.claimFailed(lane: lane, error: error, now: now) }
      )
    }
  }

  private func renew(_ claim: Claim) async {
    let until = self.clock.now().addingTimeInterval(self.leaseDuration.timeInterval)
    let result: Result<Claim, any Error>
    do {
      result = .success(try await self.storage.renewOutboxClaim(claim, until: until))
    } catch {
      result = .failure(error)
    }
    let now = self.clock.now()
    self.perform(self.state.withLock { $0.machine.renewed(claim, result: result, now: now) })
  }

  /// Writes a change of a claimed entry; returns the storage's error.
  private func write(_ write: Machine.Write) async -> (any Error)? {
    do {
      switch write {
      case .release(let claim, let lastError):
        try await self.storage.releaseOutboxClaim(
          claim,
          lastError: lastError,
          at: self.clock.now()
        )
      case .conclude(.delivered(let claim)):
        try await self.storage.completeOutboxClaim(claim)
      case .conclude(.failed(let claim)):
        try await self.storage.failOutboxClaim(
          claim,
          lastError: claim.entry.lastError ?? "unknown error",
          at: claim.entry.updatedAt
        )
      }
      return nil
    } catch {
      return error
    }
  }

  private func deliver(_ claim: Claim, context: OperationContext) {
    let entry = claim.entry
    var context = context
    context.idempotencyKey = entry.idempotencyKey
    context.outboxEntry = entry
    let handler = self.state.withLock { $0.registrations[entry.kind]?.handler }
    let task = Task { [self, context] in
      let result: Result<any Sendable, any Error>
      if let handler {
        do {
          result = .success(try await handler(entry.arguments, context))
        } catch {
          result = .failure(error)
        }
      } else {
        result = .failure(UnregisteredKindError(kind: entry.kind))
      }
      let now = self.clock.now()
      switch result {
      case .success(let value):
        self.perform(
          self.state.withLock { state in
            state.deliveries[entry.id] = nil
            return state.machine.delivered(claim, value: value, now: now)
          }
        )
      case .failure(let error):
        // NB: `classify` is the app's code; it runs with no lock held.
        let isPermanent = self.classify(error) == .permanent
        self.perform(
          self.state.withLock { state in
            state.deliveries[entry.id] = nil
            return state.machine.deliveryFailed(
              claim,
              error: error,
              isPermanent: isPermanent,
              now: now
            )
          }
        )
      }
    }
    // NB: A delivery that ended before its task is kept needs no task.
    self.state.withLock { state in
      if case .sending(let sending, _, _) = state.machine.lanes[entry.lane]?.phase,
        sending.entry.id == entry.id
      {
        state.deliveries[entry.id] = task
      }
    }
  }

  private func startTimer(
    _ timer: Machine.TimerID,
    delay: OperationDuration,
    on delayer: any OperationDelayer & Sendable
  ) {
    let task = Task { [weak self, delayer] in
      try? await delayer.delay(for: delay)
      guard !Task.isCancelled, let self else { return }
      let now = self.clock.now()
      self.perform(
        self.state.withLock { state in
          state.timerTasks[timer] = nil
          return state.machine.timerFired(timer, now: now)
        }
      )
    }
    // NB: A timer that fired (or was cancelled) before its task is kept needs no task.
    self.state.withLock { state in
      if state.machine.hasTimer(timer) { state.timerTasks[timer] = task }
    }
  }
}

// MARK: - Replies and signals

extension MutationOutbox {
  /// The answer to one caller, which the machine may give before the caller waits for it.
  final class Reply: Sendable {
    private enum State {
      case pending
      case waiting(CheckedContinuation<any Sendable, any Error>)
      case answered(Result<any Sendable, any Error>)
      case delivered
    }

    private let state = Lock(State.pending)

    /// Answers the caller; later answers are ignored.
    func resume(with result: Result<any Sendable, any Error>) {
      let continuation = self.state.withLock {
        state -> CheckedContinuation<any Sendable, any Error>? in
        switch state {
        case .pending:
          state = .answered(result)
          return nil
        case .waiting(let continuation):
          state = .delivered
          return continuation
        case .answered, .delivered:
          return nil
        }
      }
      continuation?.resume(with: result)
    }

    /// Waits for the answer.
    func wait() async throws -> any Sendable {
      try await withCheckedThrowingContinuation { continuation in
        let answer = self.state.withLock { state -> Result<any Sendable, any Error>? in
          guard case .answered(let result) = state else {
            state = .waiting(continuation)
            return nil
          }
          state = .delivered
          return result
        }
        if let answer { continuation.resume(with: answer) }
      }
    }
  }

  /// A one-time signal that one task waits for.
  final class Signal: Sendable {
    private enum State {
      case pending
      case waiting(CheckedContinuation<Void, Never>)
      case fired
    }

    private let state = Lock(State.pending)

    /// Fires the signal; later calls do nothing.
    func fire() {
      let continuation = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
        defer { state = .fired }
        if case .waiting(let continuation) = state { return continuation }
        return nil
      }
      continuation?.resume()
    }

    /// Waits until the signal fires.
    func wait() async {
      await withCheckedContinuation { continuation in
        let isFired = self.state.withLock { state -> Bool in
          guard case .fired = state else {
            state = .waiting(continuation)
            return false
          }
          return true
        }
        if isFired { continuation.resume() }
      }
    }
  }

  /// Calls that run one at a time, in the order they are scheduled, each on a task that runs
  /// while calls are waiting.
  final class SerialCalls: Sendable {
    private struct State {
      var calls = [@Sendable () async -> Void]()
      var isRunning = false
      var idleWaiters = [CheckedContinuation<Void, Never>]()
    }

    private let state = Lock(State())

    /// Runs `call` after the calls scheduled before it.
    func schedule(_ call: @escaping @Sendable () async -> Void) {
      let starts = self.state.withLock { state -> Bool in
        state.calls.append(call)
        guard !state.isRunning else { return false }
        state.isRunning = true
        return true
      }
      guard starts else { return }
      Task {
        while let call = self.next() {
          await call()
        }
      }
    }

    private func next() -> (@Sendable () async -> Void)? {
      let (call, idle) = self.state.withLock {
        state -> ((@Sendable () async -> Void)?, [CheckedContinuation<Void, Never>]) in
        guard state.calls.isEmpty else { return (state.calls.removeFirst(), []) }
        state.isRunning = false
        defer { state.idleWaiters.removeAll() }
        return (nil, state.idleWaiters)
      }
      for continuation in idle {
        continuation.resume()
      }
      return call
    }

    /// Waits until no call is scheduled or running.
    func waitUntilIdle() async {
      await withCheckedContinuation { continuation in
        let isIdle = self.state.withLock { state -> Bool in
          guard state.isRunning else { return true }
          state.idleWaiters.append(continuation)
          return false
        }
        if isIdle { continuation.resume() }
      }
    }
  }
}
