// NB: Over 600 lines, on purpose: one pure state machine, whose events (about twenty, each a short
// function over the lanes) are read against the state they change and the rules listed below; its
// synchronous and generated-sequence tests follow the same order. Its owner, `MutationOutbox`, is
// in a file of its own.

package import Foundation
package import OperationCore

/// The coordination of a ``MutationOutbox``: its lanes, the claim and state of each lane's head
/// entry, the timers, and the callers waiting for their entries.
///
/// The machine is a value that changes only through its events, and it performs nothing: each
/// event returns the actions that its owner performs, in order, after releasing its lock
/// (claiming a lane's next entry, renewing a claim, writing the end of a claim, delivering an
/// entry, starting or cancelling a timer, resuming callers, telling subscribers). The owner
/// reports how each storage call and delivery ended with another event. So the rules are tested
/// synchronously, without concurrency or storage, and no code outside the library runs while
/// the owner holds its lock.
///
/// Its rules:
///
/// - Entries of one lane are delivered one at a time, and only through a claim: the lane asks
///   the storage for a claim of its next entry (``Action/claim(lane:)``) and delivers the entry
///   the claim returns, which is the storage's next entry whatever the machine expected (the
///   storage's order wins); lanes run side by side. A lane whose next entry another worker
///   holds waits until that worker's lease expires, then asks again.
/// - While an entry is delivered its claim is renewed every `renewalInterval`.
/// - Nothing is claimed before ``resume(entries:isOnline:now:)``, while offline, while the
///   head's kind has no registered mutation (its callers are answered with
///   ``MutationOutbox/UnregisteredKindError`` and the lane waits for the registration), or once
///   the outbox stops.
/// - A retryable failure gives the entry back to its lane (the release is written first), and
///   the lane waits for its retry timer, or for the network's return; a permanent failure, or
///   the last allowed attempt, ends the entry as failed.
/// - The end of an entry (its removal after delivery, or its failure for good) is written before
///   the lane goes on. Its callers are answered once that write ends, whether it succeeded or
///   not: a delivered entry's callers learn that it was delivered even when the storage fails.
///   Subscribers hear of the end once the storage has it.
///   A failed write is reported and written again after `storageRetryDelay`, as many times as
///   it takes; the lane waits for it, so that the storage never holds an entry behind a later
///   one of its lane. A failed claim is reported and asked again after the same delays.
/// - A stale claim (``MutationOutbox/StaleClaimError``, from a renewal or a write) means that
///   another worker owns the entry: it is reported, never written again, the entry leaves this
///   machine's lane untouched, and its callers are answered with the error.
/// - A caller is answered exactly once: with its entry's outcome, its own cancellation, the
///   failure to write its entry, a lost claim, or the outbox's closing.
///
/// It is generic over what it keeps, so that its tests use plain values: the outbox keeps
/// continuations with the callers' contexts, and delivered values of any type.
package struct OutboxStateMachine<Waiter: Sendable, Value: Sendable>: Sendable {
  package typealias Entry = MutationOutbox.Entry
  package typealias Claim = MutationOutbox.Claim

  /// Identifies a caller; unique among the callers of one machine.
  package typealias WaiterID = Int

  /// Identifies a timer; timers get increasing ids.
  package typealias TimerID = Int

  /// How an entry ends, with the claim that ends it.
  package enum Conclusion: Hashable, Sendable {
    /// Delivered: the entry is removed.
    case delivered(Claim)
    /// Failed for good: the entry is kept, failed; the claim's entry has its status and error.
    case failed(Claim)

    /// The claim.
    package var claim: Claim {
      switch self {
      case .delivered(let claim), .failed(let claim): claim
      }
    }

    /// The entry.
    package var entry: Entry {
      self.claim.entry
    }
  }

  /// A change of a claimed entry for the storage.
  package enum Write: Hashable, Sendable {
    /// The entry goes back to its lane, queued, with its error (`nil` keeps the stored one).
    case release(Claim, lastError: String?)
    /// The entry ends.
    case conclude(Conclusion)

    /// The claim written through.
    package var claim: Claim {
      switch self {
      case .release(let claim, _): claim
      case .conclude(let conclusion): conclusion.claim
      }
    }

    /// The entry written.
    package var entry: Entry {
      self.claim.entry
    }
  }

  /// How a caller's wait ends.
  package enum Outcome: Sendable {
    /// The entry was delivered; the mutation returned `Value`.
    case delivered(Value)
    /// The entry failed for good; the error of its last attempt.
    case failed(Entry, any Error)
    /// The wait ended without an outcome of the entry: the caller was cancelled, its entry could
    /// not be written, its kind has no mutation, another worker owns it, or the outbox closed.
    case error(any Error)
  }

  /// What the owner performs, in order, after releasing its lock.
  package enum Action: Sendable {
    /// Claim the lane's next entry, then report with ``claimed(lane:_:now:)`` or
    /// ``claimFailed(lane:error:now:)``.
    case claim(lane: String)
    /// Extend the claim's lease, then report with ``renewed(_:result:now:)``.
    case renew(Claim)
    /// Write a change of a claimed entry, then report it with ``written(_:error:now:)``.
    case write(Write)
    /// Deliver the claimed entry (run its kind's mutation), with the context of `caller` when
    /// there is one, then report with ``delivered(_:value:now:)`` or
    /// ``deliveryFailed(_:error:isPermanent:now:)``.
    case deliver(Claim, caller: Waiter?)
    /// Cancel the delivery of the entry with the id; its end is reported as usual.
    case cancelDelivery(Int64)
    /// Start a timer that reports ``timerFired(_:now:)`` after `delay`.
    case startTimer(TimerID, delay: OperationDuration)
    /// Start the timer of a claim's next renewal, which reports ``timerFired(_:now:)`` after
    /// `delay`; it waits on the delayer of the outbox's context.
    case startRenewalTimer(TimerID, delay: OperationDuration)
    /// Cancel a timer; its firing would be ignored anyway.
    case cancelTimer(TimerID)
    /// Resume callers.
    case resume([Waiter], Outcome)
    /// Tell the subscribers.
    case notify(MutationOutbox.Event)
    /// Report a failed call of the storage about the entry: a failed write, which is tried
    /// again if it ends an entry, a failed claim or renewal, or a lost claim.
    case reportStorageFailure(Entry, any Error)
  }

  /// What a lane does.
  enum Phase: Hashable, Sendable {
    /// Nothing: it is empty, offline, not resumed, stopped, or its head's kind has no mutation.
    case idle
    /// It asks the storage for a claim of its next entry; `attempt` counts failed asks.
    case claiming(attempt: Int)
    /// Its next entry is held by another worker, or the claim failed: it asks again when the
    /// timer fires.
    case waitingToClaim(TimerID, attempt: Int)
    /// Its head is being sent under `claim`; `renewal` is the timer of the next renewal (`nil`
    /// while a renewal is written); `isLost` once a renewal found the claim stale.
    case sending(Claim, renewal: TimerID?, isLost: Bool)
    /// Its head failed and is given back to the lane; then the lane waits for a retry.
    case releasing(Claim)
    /// Its head was given back and waits for its retry timer or for the network.
    case waitingToRetry(TimerID)
    /// The end of its head is being written; `isAnswered` once its callers have been answered.
    case concluding(Conclusion, attempt: Int, isAnswered: Bool)
    /// The write of the end of its head failed; it waits for the timer to write it again.
    case waitingToConclude(Conclusion, attempt: Int, timer: TimerID)
    /// The outbox stopped while the lane held `claim`, which is given back (or, when `claim` is
    /// `nil`, is given back once the claim being asked for returns); results that arrive late
    /// are ignored.
    case abandoned(Claim?)
  }

  /// The entries of one lane, in delivery order, and what the lane does with its head.
  struct Lane: Sendable {
    /// The entries; those before `start` are gone.
    var entries = [Entry]()
    var start = 0
    /// The ids of the entries from `start` on.
    var ids = Set<Int64>()
    var phase = Phase.idle
    /// How the head ended, while its end is being written.
    var outcome: Outcome?

    var head: Entry? {
      self.start < self.entries.count ? self.entries[self.start] : nil
    }

    func contains(id: Int64) -> Bool {
      self.ids.contains(id)
    }

    /// Whether the head is being handled, so that new entries go behind it.
    var isHandlingHead: Bool {
      switch self.phase {
      case .idle, .claiming, .waitingToClaim: false
      default: true
      }
    }

    /// Inserts a new entry in id order, behind the head if the head is being handled.
    /// - Complexity: O(1) when entries arrive in id order.
    mutating func insert(_ entry: Entry) {
      var index = self.entries.endIndex
      let first = self.isHandlingHead ? self.start + 1 : self.start
      while index > first, self.entries[index - 1].id > entry.id {
        index -= 1
      }
      self.entries.insert(entry, at: index)
      self.ids.insert(entry.id)
    }

    /// Appends an entry, whatever its id.
    mutating func append(_ entry: Entry) {
      self.entries.append(entry)
      self.ids.insert(entry.id)
    }

    /// Makes `entry` the head: the claimed entry, which the storage chose.
    /// - Complexity: O(*n*) when the storage's next entry is not the expected head.
    mutating func makeHead(_ entry: Entry) {
      if self.head?.id == entry.id {
        self.entries[self.start] = entry
        return
      }
      if self.ids.contains(entry.id),
        let index = self.entries[self.start...].firstIndex(where: { $0.id == entry.id })
      {
        self.entries.remove(at: index)
      } else {
        self.ids.insert(entry.id)
      }
      self.entries.insert(entry, at: self.start)
    }

    mutating func removeHead() {
      self.outcome = nil
      self.ids.remove(self.entries[self.start].id)
      self.start += 1
      if self.start > 32, self.start * 2 > self.entries.count {
        self.entries.removeFirst(self.start)
        self.start = 0
      }
    }

    /// Removes every entry; returns them.
    mutating func removeAll() -> [Entry] {
      let removed = Array(self.entries[self.start...])
      self.entries.removeAll()
      self.start = 0
      self.ids.removeAll()
      self.outcome = nil
      return removed
    }
  }

  private let retryDelay: OperationBackoffFunction
  private let maxAttempts: Int
  private let storageRetryDelay: OperationBackoffFunction
  private let maxStorageRetryDelay: OperationDuration
  private let renewalInterval: OperationDuration

  private(set) var isResumed = false
  private(set) var isOnline = true
  private(set) var isClosed = false
  /// Whether the outbox is shutting down: nothing new is claimed or enqueued.
  private(set) var isStopping = false
  private var kinds = Set<String>()
  private(set) var lanes = [String: Lane]()
  private var waiters = [String: [(id: WaiterID, waiter: Waiter)]]()
  private var waiterKeys = [WaiterID: String]()
  private var timers = [TimerID: String]()
  private var nextTimerID: TimerID = 0
  /// The keys of entries being written by ``beginEnqueue(key:)``, with their counts: their
  /// entries join their lanes through ``enqueued(_:now:)``, never through a resume that read
  /// them from the storage meanwhile.
  private var enqueuesInProgress = [String: Int]()
  /// The entries whose deliveries a stop abandoned: their late ends are ignored.
  private var abandonedDeliveries = Set<Int64>()

  /// Creates a machine with no entries, not resumed and online.
  ///
  /// - Parameters:
  ///   - retryDelay: The wait before attempt *n* + 1 after a retryable failure of attempt *n*.
  ///   - maxAttempts: The attempts after which a retryable failure counts as permanent.
  ///   - storageRetryDelay: The wait before writing the end of an entry (or asking for a claim)
  ///     again after its *n*th failure.
  ///   - maxStorageRetryDelay: The longest such wait.
  ///   - renewalInterval: The time between renewals of a claim while its entry is delivered.
  package init(
    retryDelay: OperationBackoffFunction,
    maxAttempts: Int,
    storageRetryDelay: OperationBackoffFunction,
    maxStorageRetryDelay: OperationDuration,
    renewalInterval: OperationDuration = .seconds(10)
  ) {
    self.retryDelay = retryDelay
    self.maxAttempts = max(1, maxAttempts)
    self.storageRetryDelay = storageRetryDelay
    self.maxStorageRetryDelay = maxStorageRetryDelay
    self.renewalInterval = renewalInterval
  }
}

// MARK: - Inspecting

extension OutboxStateMachine {
  /// The entries of each lane, in delivery order.
  package var queuedEntries: [String: [Entry]] {
    self.lanes.mapValues { Array($0.entries[$0.start...]) }
  }

  /// The number of callers waiting.
  package var waiterCount: Int {
    self.waiterKeys.count
  }

  /// The number of timers that may still fire.
  package var timerCount: Int {
    self.timers.count
  }

  /// Whether a timer may still fire.
  package func hasTimer(_ timer: TimerID) -> Bool {
    self.timers[timer] != nil
  }

  /// Whether new entries may be enqueued; not once the outbox stops or closes.
  package var acceptsEnqueues: Bool {
    !self.isStopping && !self.isClosed
  }

  /// Whether a lane asks for a claim, delivers, or writes the end of a claim: what a graceful
  /// stop waits for.
  package var hasWorkInFlight: Bool {
    self.lanes.values.contains { lane in
      switch lane.phase {
      case .idle, .waitingToClaim, .waitingToRetry: false
      case .claiming, .sending, .releasing, .concluding, .waitingToConclude, .abandoned: true
      }
    }
  }
}

// MARK: - Events

extension OutboxStateMachine {
  /// The outbox loaded the entries that the last launch left, and starts delivering.
  ///
  /// Entries already in a lane (enqueued before) are kept once; failed entries stay out of the
  /// lanes; entries that were being sent are queued again. Later calls do nothing.
  package mutating func resume(entries: [Entry], isOnline: Bool, now: Date) -> [Action] {
    guard !self.isResumed else { return [] }
    self.isResumed = true
    self.isOnline = isOnline
    for var entry in entries where entry.status != .failed {
      guard self.enqueuesInProgress[entry.idempotencyKey] == nil,
        !(self.lanes[entry.lane]?.contains(id: entry.id) ?? false)
      else { continue }
      entry.status = .queued
      self.lanes[entry.lane, default: Lane()].insert(entry)
    }
    return self.startLanes(now: now)
  }

  /// Another worker wrote entries to the storage (a wake-up of a shared outbox): the entries
  /// that no lane holds join their lanes, as a resume's do, and their idle lanes start. Before
  /// the resume, and once stopping, it does nothing: the resume reads every entry.
  package mutating func discovered(entries: [Entry], now: Date) -> [Action] {
    guard self.isResumed, !self.isStopping else { return [] }
    var names = Set<String>()
    for var entry in entries where entry.status != .failed {
      guard self.enqueuesInProgress[entry.idempotencyKey] == nil,
        !(self.lanes[entry.lane]?.contains(id: entry.id) ?? false)
      else { continue }
      entry.status = .queued
      self.lanes[entry.lane, default: Lane()].insert(entry)
      names.insert(entry.lane)
    }
    var actions = [Action]()
    for name in names.sorted() {
      actions += self.startLane(name, now: now)
    }
    return actions
  }

  /// The outbox closes: no entry starts, the timers stop, and every caller is answered with
  /// `error`. Deliveries in flight end as usual.
  package mutating func close(with error: any Error) -> [Action] {
    guard !self.isClosed else { return [] }
    self.isClosed = true
    self.isStopping = true
    var actions = self.timers.keys.sorted().map(Action.cancelTimer)
    self.timers.removeAll()
    let waiters = self.waiters.values.flatMap { $0 }.sorted { $0.id < $1.id }
    self.waiters.removeAll()
    self.waiterKeys.removeAll()
    if !waiters.isEmpty {
      actions.append(.resume(waiters.map(\.waiter), .error(error)))
    }
    return actions
  }

  /// The outbox starts a graceful stop: nothing new is claimed or enqueued, and the lanes that
  /// wait to claim or to retry stop waiting. Deliveries in flight, and the writes of their ends,
  /// go on; ``hasWorkInFlight`` tells when they are done.
  package mutating func stop() -> [Action] {
    guard !self.isStopping else { return [] }
    self.isStopping = true
    var actions = [Action]()
    for name in self.lanes.keys.sorted() {
      switch self.lanes[name]!.phase {
      case .waitingToClaim(let timer, _), .waitingToRetry(let timer):
        self.timers[timer] = nil
        self.lanes[name]!.phase = .idle
        actions.append(.cancelTimer(timer))
      default:
        break
      }
    }
    return actions
  }

  /// The graceful stop's time is up: every delivery still in flight is cancelled and its claim
  /// given back at once (its late end is ignored), claims still being asked for are given back
  /// when they arrive, and the outbox closes, answering every caller with `error`.
  package mutating func abandon(with error: any Error) -> [Action] {
    var actions = self.stop()
    for name in self.lanes.keys.sorted() {
      switch self.lanes[name]!.phase {
      case .sending(let claim, let renewal, _):
        if let renewal {
          self.timers[renewal] = nil
          actions.append(.cancelTimer(renewal))
        }
        self.lanes[name]!.phase = .abandoned(claim)
        self.abandonedDeliveries.insert(claim.entry.id)
        actions += [
          .cancelDelivery(claim.entry.id), .write(.release(claim, lastError: nil)),
        ]
      case .claiming:
        self.lanes[name]!.phase = .abandoned(nil)
      case .waitingToConclude(_, _, let timer):
        // NB: The end stays unwritten; the entry is delivered again by the next outbox, with
        // its idempotency key.
        self.timers[timer] = nil
        self.lanes[name]!.phase = .idle
        actions.append(.cancelTimer(timer))
      default:
        break
      }
    }
    return actions + self.close(with: error)
  }

  /// A mutation was registered for `kind`; lanes whose head has that kind go on.
  package mutating func register(kind: String, now: Date) -> [Action] {
    guard self.kinds.insert(kind).inserted else { return [] }
    return self.startLanes(now: now)
  }

  /// A caller waits for the entry with `key`; register it before the entry is written, so that a
  /// delivery that follows the write at once finds it.
  package mutating func addWaiter(_ id: WaiterID, _ waiter: Waiter, forKey key: String) {
    self.waiters[key, default: []].append((id, waiter))
    self.waiterKeys[id] = key
  }

  /// Whether callers may still wait; not once the outbox stops or closes.
  package var acceptsWaiters: Bool {
    !self.isStopping && !self.isClosed
  }

  /// A caller stops waiting: cancelled, or its entry could not be written. Does nothing for a
  /// caller that was answered already or never added.
  /// - Complexity: O(*k*), where *k* is the number of callers waiting for the same entry.
  package mutating func removeWaiter(_ id: WaiterID, with error: any Error) -> [Action] {
    guard let key = self.waiterKeys.removeValue(forKey: id),
      let index = self.waiters[key]?.firstIndex(where: { $0.id == id })
    else { return [] }
    let waiter = self.waiters[key]!.remove(at: index).waiter
    if self.waiters[key]!.isEmpty { self.waiters[key] = nil }
    return [.resume([waiter], .error(error))]
  }

  /// The entry with `key` is about to be written; ``enqueued(_:now:)`` or
  /// ``enqueueFailed(key:)`` follows.
  package mutating func beginEnqueue(key: String) {
    self.enqueuesInProgress[key, default: 0] += 1
  }

  /// The entry with `key` could not be written; its callers are answered by
  /// ``removeWaiter(_:with:)``.
  package mutating func enqueueFailed(key: String) {
    self.endEnqueue(key: key)
  }

  private mutating func endEnqueue(key: String) {
    guard let count = self.enqueuesInProgress[key] else { return }
    self.enqueuesInProgress[key] = count > 1 ? count - 1 : nil
  }

  /// An entry was written (or was there already, with the same key). A new entry joins its
  /// lane; an entry that failed for good answers its callers at once with its stored failure.
  package mutating func enqueued(_ entry: Entry, now: Date) -> [Action] {
    self.endEnqueue(key: entry.idempotencyKey)
    if entry.status == .failed {
      let error = MutationOutbox.StoredFailure(description: entry.lastError ?? "unknown error")
      return self.answer(key: entry.idempotencyKey, .failed(entry, error))
    }
    if let lane = self.lanes[entry.lane], lane.contains(id: entry.id) {
      // NB: A caller that joins an entry whose callers were answered while its end is written
      // is answered the same way.
      switch lane.phase {
      case .concluding(_, _, isAnswered: true), .waitingToConclude:
        guard lane.head?.id == entry.id, let outcome = lane.outcome else { return [] }
        return self.answer(key: entry.idempotencyKey, outcome)
      default:
        return []
      }
    }
    self.lanes[entry.lane, default: Lane()].insert(entry)
    return [.notify(.enqueued(entry))] + self.startLane(entry.lane, now: now)
  }

  /// The app queued a failed entry again (its storage has it): it goes to the end of its lane.
  package mutating func retried(_ entry: Entry, now: Date) -> [Action] {
    guard !(self.lanes[entry.lane]?.contains(id: entry.id) ?? false) else { return [] }
    self.lanes[entry.lane, default: Lane()].append(entry)
    return [.notify(.retried(entry))] + self.startLane(entry.lane, now: now)
  }

  /// The network's status changed. Its return ends the waits for retries and starts every lane.
  package mutating func networkChanged(isOnline: Bool, now: Date) -> [Action] {
    let wasOnline = self.isOnline
    self.isOnline = isOnline
    guard isOnline, !wasOnline else { return [] }
    var actions = [Action]()
    for name in self.lanes.keys {
      if case .waitingToRetry(let timer) = self.lanes[name]!.phase {
        self.lanes[name]!.phase = .idle
        self.timers[timer] = nil
        actions.append(.cancelTimer(timer))
      }
    }
    return actions + self.startLanes(now: now)
  }

  /// The storage answered the claim of `lane`'s next entry: the claimed entry is sent; a lane
  /// held by another worker waits for its lease; an empty lane forgets the entries it expected,
  /// whose callers learn that the entries are gone.
  package mutating func claimed(
    lane name: String,
    _ result: MutationOutbox.ClaimResult,
    now: Date
  ) -> [Action] {
    guard var lane = self.lanes[name] else {
      // NB: Only a lane that asks for a claim gets an answer, and such a lane is kept.
      preconditionFailure("Lane \(name) got a claim it did not ask for.")
    }
    if case .abandoned(nil) = lane.phase {
      guard case .claimed(let claim) = result else {
        self.lanes[name]!.phase = .idle
        return []
      }
      self.lanes[name]!.phase = .abandoned(claim)
      return [.write(.release(claim, lastError: nil))]
    }
    guard case .claiming = lane.phase else {
      preconditionFailure("Lane \(name) got a claim it did not ask for.")
    }
    switch result {
    case .claimed(let claim):
      if self.isStopping {
        // NB: The outbox stopped while the claim was asked for: it is given back at once.
        self.lanes[name]!.phase = .abandoned(claim)
        return [.write(.release(claim, lastError: nil))]
      }
      lane.makeHead(claim.entry)
      let renewal = self.makeTimer(for: name)
      lane.phase = .sending(claim, renewal: renewal, isLost: false)
      self.lanes[name] = lane
      let caller = self.waiters[claim.entry.idempotencyKey]?.first?.waiter
      return [
        .notify(.sending(claim.entry)), .deliver(claim, caller: caller),
        .startRenewalTimer(renewal, delay: self.renewalInterval),
      ]
    case .busy(let until):
      guard !self.isStopping else {
        self.lanes[name]!.phase = .idle
        return []
      }
      let timer = self.makeTimer(for: name)
      self.lanes[name]!.phase = .waitingToClaim(timer, attempt: 0)
      return [.startTimer(timer, delay: .seconds(max(until.timeIntervalSince(now), 0)))]
    case .empty:
      let gone = self.lanes[name]!.removeAll()
      self.lanes[name] = nil
      var actions = [Action]()
      for entry in gone {
        actions += self.answer(
          key: entry.idempotencyKey,
          .error(MutationOutbox.EntryGoneError(entry: entry))
        )
      }
      return actions
    }
  }

  /// The storage failed to claim `lane`'s next entry: it is reported, and asked again after
  /// `storageRetryDelay`.
  package mutating func claimFailed(lane name: String, error: any Error, now: Date) -> [Action] {
    switch self.lanes[name]?.phase {
    case .abandoned(nil):
      self.lanes[name]!.phase = .idle
      return []
    case .claiming(let attempt):
      let head = self.lanes[name]!.head
      let report = head.map { [Action.reportStorageFailure($0, error)] } ?? []
      guard !self.isStopping else {
        self.lanes[name]!.phase = .idle
        return report
      }
      let timer = self.makeTimer(for: name)
      self.lanes[name]!.phase = .waitingToClaim(timer, attempt: attempt + 1)
      let delay = min(self.storageRetryDelay(attempt + 1), self.maxStorageRetryDelay)
      return report + [.startTimer(timer, delay: delay)]
    default:
      preconditionFailure("Lane \(name) failed a claim it did not ask for.")
    }
  }

  /// A renewal of `claim` ended: with the renewed claim, the storage's error (reported; the
  /// next renewal tries again), or a ``MutationOutbox/StaleClaimError``, which means another
  /// worker owns the entry: its callers are answered with it at once.
  package mutating func renewed(
    _ claim: Claim,
    result: Result<Claim, any Error>,
    now: Date
  ) -> [Action] {
    let name = claim.entry.lane
    guard case .sending(let current, renewal: nil, isLost: false) = self.lanes[name]?.phase,
      current.entry.id == claim.entry.id, current.generation == claim.generation
    else {
      // NB: The delivery ended (or was abandoned) while the renewal was written.
      return []
    }
    switch result {
    case .success(let renewed):
      let timer = self.makeTimer(for: name)
      self.lanes[name]!.phase = .sending(renewed, renewal: timer, isLost: false)
      return [.startRenewalTimer(timer, delay: self.renewalInterval)]
    case .failure(let error as MutationOutbox.StaleClaimError):
      self.lanes[name]!.phase = .sending(current, renewal: nil, isLost: true)
      return self.lost(current.entry, error: error)
    case .failure(let error):
      let timer = self.makeTimer(for: name)
      self.lanes[name]!.phase = .sending(current, renewal: timer, isLost: false)
      return [
        .reportStorageFailure(current.entry, error),
        .startRenewalTimer(timer, delay: self.renewalInterval),
      ]
    }
  }

  /// The delivery of `claim`'s entry returned `value`: its removal is written.
  package mutating func delivered(_ claim: Claim, value: Value, now: Date) -> [Action] {
    let name = claim.entry.lane
    guard let (sending, ended, isLost) = self.endDelivery(of: claim) else { return [] }
    var actions = ended
    if isLost { return actions + self.dropHead(of: name, now: now) }
    self.lanes[name]!.outcome = .delivered(value)
    let conclusion = Conclusion.delivered(sending)
    self.lanes[name]!.phase = .concluding(conclusion, attempt: 1, isAnswered: false)
    actions.append(.write(.conclude(conclusion)))
    return actions
  }

  /// The delivery of `claim`'s entry threw `error`, which the outbox's `classify` called
  /// permanent or not: the entry is given back to its lane, or ends as failed.
  package mutating func deliveryFailed(
    _ claim: Claim,
    error: any Error,
    isPermanent: Bool,
    now: Date
  ) -> [Action] {
    let name = claim.entry.lane
    guard let (sending, ended, isLost) = self.endDelivery(of: claim) else { return [] }
    var actions = ended
    if isLost { return actions + self.dropHead(of: name, now: now) }
    var failed = sending
    failed.entry.lastError = String(describing: error)
    failed.entry.updatedAt = now
    if isPermanent || failed.entry.attempts >= self.maxAttempts {
      failed.entry.status = .failed
      self.lanes[name]!.outcome = .failed(failed.entry, error)
      let conclusion = Conclusion.failed(failed)
      self.lanes[name]!.phase = .concluding(conclusion, attempt: 1, isAnswered: false)
      actions.append(.write(.conclude(conclusion)))
      return actions
    }
    failed.entry.status = .queued
    self.lanes[name]!.replaceHead(with: failed.entry)
    self.lanes[name]!.phase = .releasing(failed)
    actions.append(.write(.release(failed, lastError: failed.entry.lastError)))
    return actions
  }

  /// A write ended, with `error` when it failed.
  package mutating func written(_ write: Write, error: (any Error)?, now: Date) -> [Action] {
    let name = write.entry.lane
    if case .abandoned(let claim?) = self.lanes[name]?.phase, claim.entry.id == write.entry.id {
      // NB: A claim given back at a stop: the lane is done, whatever the storage said.
      self.lanes[name]!.phase = .idle
      return error.map { [.reportStorageFailure(write.entry, $0)] } ?? []
    }
    switch write {
    case .release(let claim, _):
      return self.released(claim, error: error, now: now)
    case .conclude(let conclusion):
      return self.concluded(conclusion, error: error, now: now)
    }
  }

  private mutating func released(_ claim: Claim, error: (any Error)?, now: Date) -> [Action] {
    let name = claim.entry.lane
    guard case .releasing(claim) = self.lanes[name]?.phase else {
      preconditionFailure("The release of entry \(claim.entry.id) was written out of turn.")
    }
    if let error = error as? MutationOutbox.StaleClaimError {
      return self.lost(claim.entry, error: error) + self.dropHead(of: name, now: now)
    }
    // NB: A failed release leaves the entry claimed by this worker, which claims it again.
    var actions = error.map { [Action.reportStorageFailure(claim.entry, $0)] } ?? []
    actions.append(.notify(.requeued(claim.entry)))
    guard !self.isStopping else {
      self.lanes[name]!.phase = .idle
      return actions
    }
    let timer = self.makeTimer(for: name)
    self.lanes[name]!.phase = .waitingToRetry(timer)
    actions.append(.startTimer(timer, delay: self.retryDelay(claim.entry.attempts)))
    return actions
  }

  private mutating func concluded(
    _ conclusion: Conclusion,
    error: (any Error)?,
    now: Date
  ) -> [Action] {
    let name = conclusion.entry.lane
    guard case .concluding(conclusion, let attempt, let isAnswered) = self.lanes[name]?.phase
    else {
      preconditionFailure("The end of entry \(conclusion.entry.id) was written out of turn.")
    }
    if let error = error as? MutationOutbox.StaleClaimError {
      // NB: Another worker owns the entry: its callers learn that, not this worker's outcome,
      // unless they were answered by an earlier attempt of the write.
      let actions =
        isAnswered
        ? self.reportLost(conclusion.entry, error: error)
        : self.lost(
          conclusion.entry,
          error: error
        )
      return actions + self.dropHead(of: name, now: now)
    }
    var actions = [Action]()
    if let error {
      actions.append(.reportStorageFailure(conclusion.entry, error))
    }
    if !isAnswered {
      actions += self.answer(key: conclusion.entry.idempotencyKey, self.lanes[name]!.outcome!)
    }
    if error != nil {
      let timer = self.makeTimer(for: name)
      self.lanes[name]!.phase = .waitingToConclude(conclusion, attempt: attempt, timer: timer)
      let delay = min(self.storageRetryDelay(attempt), self.maxStorageRetryDelay)
      return actions + [.startTimer(timer, delay: delay)]
    }
    // NB: Subscribers hear of the end once the storage has it.
    switch conclusion {
    case .delivered(let claim): actions.append(.notify(.delivered(claim.entry)))
    case .failed(let claim): actions.append(.notify(.failed(claim.entry)))
    }
    self.lanes[name]!.removeHead()
    self.lanes[name]!.phase = .idle
    return actions + self.startLane(name, now: now)
  }

  /// A timer fired: a retry or a claim is due, a claim is renewed, or the end of an entry is
  /// written again. A timer that was cancelled, or whose wait the network ended, does nothing.
  package mutating func timerFired(_ timer: TimerID, now: Date) -> [Action] {
    guard let name = self.timers.removeValue(forKey: timer) else { return [] }
    switch self.lanes[name]?.phase {
    case .waitingToRetry(timer):
      self.lanes[name]!.phase = .idle
      return self.startLane(name, now: now)
    case .waitingToClaim(timer, let attempt):
      self.lanes[name]!.phase = .idle
      return self.startLane(name, now: now, attempt: attempt)
    case .sending(let claim, renewal: .some(timer), isLost: false):
      self.lanes[name]!.phase = .sending(claim, renewal: nil, isLost: false)
      return [.renew(claim)]
    case .waitingToConclude(let conclusion, let attempt, timer):
      self.lanes[name]!.phase = .concluding(conclusion, attempt: attempt + 1, isAnswered: true)
      return [.write(.conclude(conclusion))]
    default:
      return []
    }
  }
}

// MARK: - Helpers

extension OutboxStateMachine {
  private mutating func makeTimer(for lane: String) -> TimerID {
    defer { self.nextTimerID += 1 }
    self.timers[self.nextTimerID] = lane
    return self.nextTimerID
  }

  /// Ends the delivery of `claim`'s entry: the claim being sent, the cancellation of its next
  /// renewal, and whether a renewal found it stale; `nil` for a delivery a stop abandoned.
  private mutating func endDelivery(
    of claim: Claim
  ) -> (sending: Claim, actions: [Action], isLost: Bool)? {
    if self.abandonedDeliveries.remove(claim.entry.id) != nil { return nil }
    guard case .sending(let sending, let renewal, let isLost) = self.lanes[claim.entry.lane]?.phase,
      sending.entry.id == claim.entry.id
    else {
      preconditionFailure("Entry \(claim.entry.id) ended, but its lane was not sending it.")
    }
    return (sending, self.endRenewal(renewal), isLost)
  }

  private mutating func endRenewal(_ renewal: TimerID?) -> [Action] {
    guard let renewal else { return [] }
    self.timers[renewal] = nil
    return [.cancelTimer(renewal)]
  }

  private mutating func startLanes(now: Date) -> [Action] {
    var actions = [Action]()
    for lane in self.lanes.keys.sorted() {
      actions += self.startLane(lane, now: now)
    }
    return actions
  }

  /// Asks for a claim of an idle lane's next entry, when it may.
  private mutating func startLane(_ name: String, now: Date, attempt: Int = 0) -> [Action] {
    guard self.isResumed, !self.isStopping, self.isOnline, let lane = self.lanes[name],
      lane.phase == .idle
    else {
      return []
    }
    guard let head = lane.head else {
      self.lanes[name] = nil
      return []
    }
    guard self.kinds.contains(head.kind) else {
      // NB: Nothing can deliver the entry until its kind is registered; the lane waits.
      return self.answer(
        key: head.idempotencyKey,
        .error(MutationOutbox.UnregisteredKindError(kind: head.kind))
      )
    }
    self.lanes[name]!.phase = .claiming(attempt: attempt)
    return [.claim(lane: name)]
  }

  /// The claim of `entry` is lost to another worker: it is reported, and its callers answered.
  private mutating func lost(
    _ entry: Entry,
    error: MutationOutbox.StaleClaimError
  ) -> [Action] {
    self.reportLost(entry, error: error) + self.answer(key: entry.idempotencyKey, .error(error))
  }

  private func reportLost(_ entry: Entry, error: MutationOutbox.StaleClaimError) -> [Action] {
    [
      .reportStorageFailure(entry, error),
      .notify(.claimLost(entry, error: error.description)),
    ]
  }

  /// Forgets the head of a lane, which another worker owns now, and goes on with the lane.
  private mutating func dropHead(of name: String, now: Date) -> [Action] {
    self.lanes[name]!.removeHead()
    self.lanes[name]!.phase = .idle
    return self.startLane(name, now: now)
  }

  private mutating func answer(key: String, _ outcome: Outcome) -> [Action] {
    guard let waiters = self.waiters.removeValue(forKey: key) else { return [] }
    for waiter in waiters {
      self.waiterKeys[waiter.id] = nil
    }
    return [.resume(waiters.map(\.waiter), outcome)]
  }
}

extension OutboxStateMachine.Lane {
  mutating func replaceHead(with entry: MutationOutbox.Entry) {
    self.entries[self.start] = entry
  }
}
