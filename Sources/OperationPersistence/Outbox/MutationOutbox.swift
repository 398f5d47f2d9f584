public import Foundation
@_spi(Warnings) public import OperationCore
import OperationSynchronization

/// A durable queue of mutations: each one is written to the database before it runs, delivered
/// in order per lane, kept while offline or after a failure that may pass, and resumed after a
/// restart.
///
/// ```swift
/// let outbox = try MutationOutbox(
///   storage: persistence,
///   networkObserver: NWPathMonitorObserver.startingShared()
/// )
/// let createPost = CreatePost().durable(in: outbox, kind: "create-post")
/// try outbox.resume()  // Delivers what the last launch left queued.
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
/// ## When things fail
///
/// - **The storage fails** (a full disk, a lock held past the busy timeout). Writing a new entry
///   throws to the caller: nothing was queued. Once a delivery has ended, its callers are
///   answered at once (a delivered entry *was* delivered), and the write that ends the entry is
///   tried again after `storageRetryDelay`, until it lands; the lane waits for it, so that the
///   storage never keeps an entry behind a later one. Every failed write is reported to
///   `onStorageFailure` (an issue by default) and to subscribers as
///   ``Event/storageFailed(_:error:)``.
/// - **A second outbox opens the same storage**, in this process or another: its initializer
///   throws ``OutboxClaimedError``, which names the owner, so entries are never delivered twice.
///   The claim ends with the outbox, or with its process (a crash included).
/// - **Two mutation types are registered under one kind**: the second registration is refused
///   and reported, and its runs throw ``KindConflictError`` before anything is written.
///
/// The lanes, retries, timers and waiting callers are a pure state machine, so these rules are
/// tested with generated sequences of events.
public final class MutationOutbox: Sendable {
  typealias Handler = @Sendable (Data, OperationContext) async throws -> any Sendable
  typealias Machine = OutboxStateMachine<Caller, any Sendable>

  /// A caller waiting for its entry, with the context its delivery runs with.
  struct Caller: Sendable {
    let continuation: CheckedContinuation<any Sendable, any Error>
    let context: OperationContext
  }

  /// The mutation that delivers the entries of a kind.
  private struct Registration: Sendable {
    let type: ErasedOperationType
    let handler: Handler
  }

  /// The storage of the entries.
  public let storage: any OperationPersistenceStorage

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

  private struct State: Sendable {
    var machine: Machine
    var registrations = [String: Registration]()
    var subscribers = [Int: @Sendable (Event) -> Void]()
    var nextSubscriberID = 0
    var nextWaiterID = 0
    /// The tasks that wait out the machine's timers, so that a timer the machine cancels stops
    /// waiting.
    var timerTasks = [Machine.TimerID: Task<Void, Never>]()
  }

  /// Creates an outbox on `storage`, claiming the storage's outbox for this outbox; call
  /// ``resume()`` to start delivering.
  ///
  /// - Parameters:
  ///   - storage: The storage of the entries.
  ///   - context: The context of deliveries that no caller waits for, such as those a restart
  ///     resumes; pass the client's default context, so that mutations read what they expect
  ///     from it. A delivery that a caller waits for runs with the caller's context.
  ///   - networkObserver: Tells when the network is back; without one the outbox sends at once.
  ///   - clock: Dates the entries.
  ///   - delayer: Waits between attempts, and between writes of a failed storage.
  ///   - retryDelay: The wait before attempt *n* + 1 after a retryable failure.
  ///   - maxAttempts: The attempts after which a retryable failure counts as permanent.
  ///   - storageRetryDelay: The wait before the *n* + 1st write of the change that ends an entry
  ///     (its removal after delivery, or its failure for good), after *n* failed writes; never
  ///     more than 30 seconds.
  ///   - classify: Whether a failure may pass; retryable by default, except
  ///     ``PermanentMutationFailure`` errors.
  ///   - onStorageFailure: Told of each write of the storage that fails; by default reported as
  ///     an issue (``reportStorageFailure``).
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
    classify: @escaping @Sendable (any Error) -> FailureKind = MutationOutbox.defaultClassify,
    onStorageFailure: @escaping @Sendable (Entry, any Error) -> Void = MutationOutbox
      .reportStorageFailure
  ) throws {
    try storage.claimOutbox(owner: Self.ownerDescription(at: clock.now()))
    self.storage = storage
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
          maxStorageRetryDelay: .seconds(30)
        )
      )
    )
  }

  deinit {
    self.networkSubscription.withLock { $0 }.cancel()
    self.releaseClaim()
  }

  private func releaseClaim() {
    let holds = self.holdsClaim.withLock { holds in
      defer { holds = false }
      return holds
    }
    if holds { self.storage.releaseOutbox() }
  }

  /// Retryable, except for errors that conform to ``PermanentMutationFailure``.
  public static let defaultClassify: @Sendable (any Error) -> FailureKind = { error in
    error is any PermanentMutationFailure ? .permanent : .retryable
  }

  /// Reports a failed write of the storage as an issue: a test failure under a test runner, a
  /// runtime warning otherwise. The default `onStorageFailure` handler.
  public static let reportStorageFailure: @Sendable (Entry, any Error) -> Void = { entry, error in
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

  /// Stops delivering and releases the storage's outbox, so that another outbox (in this
  /// process or another) can claim it; for a graceful shutdown or a hand-over.
  ///
  /// Callers still waiting are answered with ``ClosedError``; their entries stay in the
  /// storage, for the next outbox. A delivery in flight ends as usual. An outbox also releases
  /// the storage when it is deinitialized. Later calls do nothing.
  public func close() {
    self.perform(self.state.withLock { $0.machine.close(with: ClosedError()) })
    self.networkSubscription.withLock { $0 }.cancel()
    self.releaseClaim()
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
  public func resume() throws {
    let entries = try self.storage.outboxEntries()
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
  /// - Throws: The encoding's or the storage's error; then nothing was queued.
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
    self.state.withLock { $0.machine.beginEnqueue(key: idempotencyKey) }
    let entry: Entry
    do {
      entry = try self.storage.enqueueOutboxEntry(
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
    let id = self.state.withLock { state in
      defer { state.nextWaiterID += 1 }
      return state.nextWaiterID
    }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        // NB: The waiter is registered before the entry exists, so a delivery that follows the
        // write at once finds it.
        let isClosed = self.state.withLock { state in
          guard state.machine.acceptsWaiters else { return true }
          state.machine.addWaiter(
            id,
            Caller(continuation: continuation, context: context),
            forKey: key
          )
          return false
        }
        guard !isClosed else {
          continuation.resume(throwing: ClosedError())
          return
        }
        do {
          _ = try self.enqueue(kind: kind, data: data, lane: lane, idempotencyKey: key)
        } catch {
          self.perform(self.state.withLock { $0.machine.removeWaiter(id, with: error) })
        }
        // NB: A cancellation that arrived before the waiter was registered found nothing to
        // resume; the entry is written, only the wait ends.
        if Task.isCancelled {
          self.perform(
            self.state.withLock { $0.machine.removeWaiter(id, with: CancellationError()) }
          )
        }
      }
    } onCancel: {
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
  /// - Throws: The storage's error; then the entry stays failed.
  public func retry(_ entry: Entry) throws {
    var entry = entry
    entry.status = .queued
    entry.attempts = 0
    entry.updatedAt = self.clock.now()
    try self.storage.updateOutboxEntry(entry)
    let now = self.clock.now()
    self.perform(self.state.withLock { $0.machine.retried(entry, now: now) })
  }

  /// Removes an entry that failed for good.
  ///
  /// - Parameter entry: The entry.
  /// - Throws: The storage's error; then the entry stays.
  public func discard(_ entry: Entry) throws {
    try self.storage.removeOutboxEntry(id: entry.id)
    self.send(.discarded(entry))
  }

  // MARK: Performing the machine's actions

  private func networkChanged(to status: NetworkConnectionStatus) {
    let now = self.clock.now()
    self.perform(
      self.state.withLock { $0.machine.networkChanged(isOnline: status == .connected, now: now) }
    )
  }

  /// Performs the machine's actions in order, with no lock held, and feeds it the outcomes of
  /// the writes, whose actions follow.
  private func perform(_ actions: [Machine.Action]) {
    var queue = actions[...]
    while let action = queue.popFirst() {
      switch action {
      case .write(let write):
        let error = self.write(write)
        let now = self.clock.now()
        queue.append(
          contentsOf: self.state.withLock { $0.machine.written(write, error: error, now: now) }
        )
      case .deliver(let entry, let caller):
        self.deliver(entry, context: caller?.context ?? self.context)
      case .startTimer(let timer, let delay):
        self.startTimer(timer, delay: delay)
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
          caller.continuation.resume(with: result)
        }
      case .notify(let event):
        self.send(event)
      case .reportStorageFailure(let write, let error):
        self.onStorageFailure(write.entry, error)
        self.send(.storageFailed(write.entry, error: String(describing: error)))
      }
    }
  }

  /// Writes a change of an entry; returns the storage's error.
  private func write(_ write: Machine.Write) -> (any Error)? {
    do {
      switch write {
      case .markInFlight(let entry), .requeue(let entry), .conclude(.failed(let entry)):
        try self.storage.updateOutboxEntry(entry)
      case .conclude(.delivered(let entry)):
        try self.storage.removeOutboxEntry(id: entry.id)
      }
      return nil
    } catch {
      return error
    }
  }

  private func deliver(_ entry: Entry, context: OperationContext) {
    var context = context
    context.idempotencyKey = entry.idempotencyKey
    context.outboxEntry = entry
    let handler = self.state.withLock { $0.registrations[entry.kind]?.handler }
    Task { [self, context] in
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
        self.perform(self.state.withLock { $0.machine.delivered(entry, value: value, now: now) })
      case .failure(let error):
        // NB: `classify` is the app's code; it runs with no lock held.
        let isPermanent = self.classify(error) == .permanent
        self.perform(
          self.state.withLock {
            $0.machine.deliveryFailed(entry, error: error, isPermanent: isPermanent, now: now)
          }
        )
      }
    }
  }

  private func startTimer(_ timer: Machine.TimerID, delay: OperationDuration) {
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
