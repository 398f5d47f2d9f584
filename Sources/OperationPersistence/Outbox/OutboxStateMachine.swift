package import Foundation
package import OperationCore

/// The coordination of a ``MutationOutbox``: its lanes, the state of each lane's head entry, the
/// retry timers, and the callers waiting for their entries.
///
/// The machine is a value that changes only through its events, and it performs nothing: each
/// event returns the actions that its owner performs, in order, after releasing its lock
/// (writing an entry's status, delivering an entry, starting or cancelling a timer, resuming
/// callers, telling subscribers). The owner reports how each write and delivery ended with
/// another event. So the rules are tested synchronously, without concurrency or storage, and no
/// code outside the library runs while the owner holds its lock.
///
/// Its rules:
///
/// - Entries of one lane are delivered one at a time, in the order of their ids (an entry
///   retried by the app goes to the end of its lane); lanes run side by side.
/// - Nothing is delivered before ``resume(entries:isOnline:now:)``, while offline, or while the
///   head's kind has no registered mutation (its callers are answered with
///   ``MutationOutbox/UnregisteredKindError`` and the lane waits for the registration).
/// - A retryable failure keeps the entry at the head of its lane, queued, and the lane waits
///   for its retry timer, or for the network's return; a permanent failure, or the last allowed
///   attempt, ends the entry as failed.
/// - The end of an entry (its removal after delivery, or its failure for good) is written before
///   the lane goes on. Its callers are answered once that write ends, whether it succeeded or
///   not: a delivered entry's callers learn that it was delivered even when the storage fails.
///   Subscribers hear of the end once the storage has it.
///   A failed write is reported and written again after `storageRetryDelay`, as many times as
///   it takes; the lane waits for it, so that the storage never holds an entry behind a later
///   one of its lane. Writes that do not end an entry (sending, queued again) are reported when
///   they fail and do not hold the lane: an entry is sent again after a restart whatever its
///   stored status.
/// - A caller is answered exactly once: with its entry's outcome, its own cancellation, or the
///   failure to write its entry.
///
/// It is generic over what it keeps, so that its tests use plain values: the outbox keeps
/// continuations with the callers' contexts, and delivered values of any type.
package struct OutboxStateMachine<Waiter: Sendable, Value: Sendable>: Sendable {
  package typealias Entry = MutationOutbox.Entry

  /// Identifies a caller; unique among the callers of one machine.
  package typealias WaiterID = Int

  /// Identifies a timer; timers get increasing ids.
  package typealias TimerID = Int

  /// How an entry ends.
  package enum Conclusion: Hashable, Sendable {
    /// Delivered: the entry is removed.
    case delivered(Entry)
    /// Failed for good: the entry is kept, failed.
    case failed(Entry)

    /// The entry.
    package var entry: Entry {
      switch self {
      case .delivered(let entry), .failed(let entry): entry
      }
    }
  }

  /// A change of an entry for the storage.
  package enum Write: Hashable, Sendable {
    /// The entry is being sent (status `inFlight`, one more attempt).
    case markInFlight(Entry)
    /// The entry failed and waits to be sent again (status `queued`, its error).
    case requeue(Entry)
    /// The entry ends.
    case conclude(Conclusion)

    /// The entry written.
    package var entry: Entry {
      switch self {
      case .markInFlight(let entry), .requeue(let entry): entry
      case .conclude(let conclusion): conclusion.entry
      }
    }
  }

  /// How a caller's wait ends.
  package enum Outcome: Sendable {
    /// The entry was delivered; the mutation returned `Value`.
    case delivered(Value)
    /// The entry failed for good; the error of its last attempt.
    case failed(Entry, any Error)
    /// The wait ended without an outcome of the entry: the caller was cancelled, its entry could
    /// not be written, or its kind has no mutation.
    case error(any Error)
  }

  /// What the owner performs, in order, after releasing its lock.
  package enum Action: Sendable {
    /// Write a change of an entry, then report it with ``written(_:error:now:)``.
    case write(Write)
    /// Deliver the entry (run its kind's mutation), with the context of `caller` when there is
    /// one, then report with ``delivered(_:value:now:)`` or
    /// ``deliveryFailed(_:error:isPermanent:now:)``.
    case deliver(Entry, caller: Waiter?)
    /// Start a timer that reports ``timerFired(_:now:)`` after `delay`.
    case startTimer(TimerID, delay: OperationDuration)
    /// Cancel a timer; its firing would be ignored anyway.
    case cancelTimer(TimerID)
    /// Resume callers.
    case resume([Waiter], Outcome)
    /// Tell the subscribers.
    case notify(MutationOutbox.Event)
    /// Report a failed write, which is tried again if it ends an entry.
    case reportStorageFailure(Write, any Error)
  }

  /// What a lane does.
  enum Phase: Hashable, Sendable {
    /// Nothing: it is empty, offline, not resumed, or its head's kind has no mutation.
    case idle
    /// Its head is being sent.
    case sending(Entry)
    /// Its head failed and waits for its retry timer or for the network.
    case waitingToRetry(TimerID)
    /// The end of its head is being written; `isAnswered` once its callers have been answered.
    case concluding(Conclusion, attempt: Int, isAnswered: Bool)
    /// The write of the end of its head failed; it waits for the timer to write it again.
    case waitingToConclude(Conclusion, attempt: Int, timer: TimerID)
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

    /// Inserts a new entry in id order, behind the head if the head is being handled.
    /// - Complexity: O(1) when entries arrive in id order.
    mutating func insert(_ entry: Entry) {
      var index = self.entries.endIndex
      let first = self.phase == .idle ? self.start : self.start + 1
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

    mutating func removeHead() {
      self.outcome = nil
      self.ids.remove(self.entries[self.start].id)
      self.start += 1
      if self.start > 32, self.start * 2 > self.entries.count {
        self.entries.removeFirst(self.start)
        self.start = 0
      }
    }

    mutating func replaceHead(with entry: Entry) {
      self.entries[self.start] = entry
    }
  }

  private let retryDelay: OperationBackoffFunction
  private let maxAttempts: Int
  private let storageRetryDelay: OperationBackoffFunction
  private let maxStorageRetryDelay: OperationDuration

  private(set) var isResumed = false
  private(set) var isOnline = true
  private(set) var isClosed = false
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

  /// Creates a machine with no entries, not resumed and online.
  ///
  /// - Parameters:
  ///   - retryDelay: The wait before attempt *n* + 1 after a retryable failure of attempt *n*.
  ///   - maxAttempts: The attempts after which a retryable failure counts as permanent.
  ///   - storageRetryDelay: The wait before writing the end of an entry again after its *n*th
  ///     failed write.
  ///   - maxStorageRetryDelay: The longest such wait.
  package init(
    retryDelay: OperationBackoffFunction,
    maxAttempts: Int,
    storageRetryDelay: OperationBackoffFunction,
    maxStorageRetryDelay: OperationDuration
  ) {
    self.retryDelay = retryDelay
    self.maxAttempts = max(1, maxAttempts)
    self.storageRetryDelay = storageRetryDelay
    self.maxStorageRetryDelay = maxStorageRetryDelay
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

  /// The outbox closes: no entry starts, the timers stop, and every caller is answered with
  /// `error`. Deliveries in flight end as usual.
  package mutating func close(with error: any Error) -> [Action] {
    guard !self.isClosed else { return [] }
    self.isClosed = true
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

  /// Whether callers may still wait; not once the outbox is closed.
  package var acceptsWaiters: Bool {
    !self.isClosed
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

  /// The delivery of `entry` returned `value`: its removal is written.
  package mutating func delivered(_ entry: Entry, value: Value, now: Date) -> [Action] {
    guard case .sending(let sending) = self.lanes[entry.lane]?.phase, sending.id == entry.id else {
      preconditionFailure("Entry \(entry.id) was delivered, but its lane was not sending it.")
    }
    self.lanes[entry.lane]!.outcome = .delivered(value)
    let conclusion = Conclusion.delivered(sending)
    self.lanes[entry.lane]!.phase = .concluding(conclusion, attempt: 1, isAnswered: false)
    return [.write(.conclude(conclusion))]
  }

  /// The delivery of `entry` threw `error`, which the outbox's `classify` called permanent or
  /// not: the entry is queued again, or ends as failed.
  package mutating func deliveryFailed(
    _ entry: Entry,
    error: any Error,
    isPermanent: Bool,
    now: Date
  ) -> [Action] {
    guard case .sending(let sending) = self.lanes[entry.lane]?.phase, sending.id == entry.id else {
      preconditionFailure("Entry \(entry.id) failed, but its lane was not sending it.")
    }
    var failed = sending
    failed.lastError = String(describing: error)
    failed.updatedAt = now
    if isPermanent || failed.attempts >= self.maxAttempts {
      failed.status = .failed
      self.lanes[entry.lane]!.outcome = .failed(failed, error)
      let conclusion = Conclusion.failed(failed)
      self.lanes[entry.lane]!.phase = .concluding(conclusion, attempt: 1, isAnswered: false)
      return [.write(.conclude(conclusion))]
    }
    failed.status = .queued
    let timer = self.makeTimer(for: entry.lane)
    self.lanes[entry.lane]!.replaceHead(with: failed)
    self.lanes[entry.lane]!.phase = .waitingToRetry(timer)
    return [
      .write(.requeue(failed)),
      .notify(.requeued(failed)),
      .startTimer(timer, delay: self.retryDelay(failed.attempts)),
    ]
  }

  /// A write ended, with `error` when it failed.
  package mutating func written(_ write: Write, error: (any Error)?, now: Date) -> [Action] {
    guard case .conclude(let conclusion) = write else {
      // NB: Only the end of an entry holds its lane; the other writes are only reported.
      return error.map { [.reportStorageFailure(write, $0)] } ?? []
    }
    let lane = conclusion.entry.lane
    guard case .concluding(conclusion, let attempt, let isAnswered) = self.lanes[lane]?.phase
    else {
      preconditionFailure("The end of entry \(conclusion.entry.id) was written out of turn.")
    }
    var actions = [Action]()
    if let error {
      actions.append(.reportStorageFailure(write, error))
    }
    if !isAnswered {
      actions += self.answer(key: conclusion.entry.idempotencyKey, self.lanes[lane]!.outcome!)
    }
    if error != nil {
      let timer = self.makeTimer(for: lane)
      self.lanes[lane]!.phase = .waitingToConclude(conclusion, attempt: attempt, timer: timer)
      let delay = min(self.storageRetryDelay(attempt), self.maxStorageRetryDelay)
      return actions + [.startTimer(timer, delay: delay)]
    }
    // NB: Subscribers hear of the end once the storage has it.
    switch conclusion {
    case .delivered(let entry): actions.append(.notify(.delivered(entry)))
    case .failed(let entry): actions.append(.notify(.failed(entry)))
    }
    self.lanes[lane]!.removeHead()
    self.lanes[lane]!.phase = .idle
    return actions + self.startLane(lane, now: now)
  }

  /// A timer fired: a retry is due, or the end of an entry is written again. A timer that was
  /// cancelled, or whose wait the network ended, does nothing.
  package mutating func timerFired(_ timer: TimerID, now: Date) -> [Action] {
    guard let lane = self.timers.removeValue(forKey: timer) else { return [] }
    switch self.lanes[lane]?.phase {
    case .waitingToRetry(timer):
      self.lanes[lane]!.phase = .idle
      return self.startLane(lane, now: now)
    case .waitingToConclude(let conclusion, let attempt, timer):
      self.lanes[lane]!.phase = .concluding(conclusion, attempt: attempt + 1, isAnswered: true)
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

  private mutating func startLanes(now: Date) -> [Action] {
    var actions = [Action]()
    for lane in self.lanes.keys.sorted() {
      actions += self.startLane(lane, now: now)
    }
    return actions
  }

  /// Starts sending the head of an idle lane, when it may.
  private mutating func startLane(_ name: String, now: Date) -> [Action] {
    guard self.isResumed, !self.isClosed, self.isOnline, var lane = self.lanes[name],
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
    var sending = head
    sending.status = .inFlight
    sending.attempts += 1
    sending.updatedAt = now
    lane.replaceHead(with: sending)
    lane.phase = .sending(sending)
    self.lanes[name] = lane
    let caller = self.waiters[head.idempotencyKey]?.first?.waiter
    return [
      .write(.markInFlight(sending)), .notify(.sending(sending)), .deliver(sending, caller: caller),
    ]
  }

  private mutating func answer(key: String, _ outcome: Outcome) -> [Action] {
    guard let waiters = self.waiters.removeValue(forKey: key) else { return [] }
    for waiter in waiters {
      self.waiterKeys[waiter.id] = nil
    }
    return [.resume(waiters.map(\.waiter), outcome)]
  }
}
