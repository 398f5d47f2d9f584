import Foundation
import OperationCore
import PropertyBased
import Testing

@testable import OperationPersistence

private typealias Machine = OutboxStateMachine<Int, String>
private typealias Entry = MutationOutbox.Entry

@Suite struct `OutboxStateMachine tests` {
  private let now = Date(timeIntervalSince1970: 1_000)

  private func machine(maxAttempts: Int = 3) -> Machine {
    Machine(
      retryDelay: .constant(.seconds(1)),
      maxAttempts: maxAttempts,
      storageRetryDelay: .exponential(.milliseconds(100)),
      maxStorageRetryDelay: .seconds(30)
    )
  }

  private func entry(_ id: Int64, lane: String = "l", kind: String = "k") -> Entry {
    queuedEntry(id, lane: lane, kind: kind, at: self.now)
  }

  // MARK: - Delivering

  @Test func `Entries Of A Lane Are Sent One At A Time In Id Order`() {
    var machine = self.machine()
    _ = machine.settling { $0.register(kind: "k", now: self.now) }
    _ = machine.settling { $0.resume(entries: [], isOnline: true, now: self.now) }
    let first = machine.settling { $0.enqueued(self.entry(2), now: self.now) }
    #expect(first.delivered.map(\.id) == [2])
    #expect(machine.settling { $0.enqueued(self.entry(3), now: self.now) }.delivered.isEmpty)
    // NB: An entry whose write finished after a later one's still goes before it.
    #expect(
      machine.settling { $0.enqueued(self.entry(1, lane: "other"), now: self.now) }.delivered.map(
        \.id
      ) == [1]
    )

    let removal = machine.delivered(first.delivered[0], value: "two", now: self.now)
    #expect(removal.writes == [.conclude(.delivered(first.delivered[0]))])
    let next = machine.settling { $0.written(removal.writes[0], error: nil, now: self.now) }
    #expect(next.delivered.map(\.id) == [3])
    #expect(next.delivered.first?.attempts == 1)
    #expect(next.delivered.first?.status == .inFlight)
  }

  @Test func `Nothing Is Sent Before Resume, Offline, Or Without The Kind's Mutation`() {
    var machine = self.machine()
    machine.addWaiter(7, 7, forKey: "key-1")
    #expect(machine.settling { $0.enqueued(self.entry(1), now: self.now) }.delivered.isEmpty)
    let resumed = machine.settling {
      $0.resume(entries: [self.entry(1)], isOnline: false, now: self.now)
    }
    #expect(resumed.delivered.isEmpty)
    // NB: Online, the lane finds no mutation for the kind: its caller is told, the entry stays.
    let online = machine.settling { $0.networkChanged(isOnline: true, now: self.now) }
    #expect(online.delivered.isEmpty)
    #expect(online.resumed.map(\.waiters) == [[7]])
    #expect(machine.queuedEntries["l"]?.map(\.id) == [1])
    #expect(machine.settling { $0.register(kind: "k", now: self.now) }.delivered.map(\.id) == [1])
  }

  @Test func `A Failed Removal After Delivery Answers The Caller And Is Written Again`() {
    var machine = self.machine()
    _ = machine.settling { $0.register(kind: "k", now: self.now) }
    _ = machine.settling { $0.resume(entries: [], isOnline: true, now: self.now) }
    machine.addWaiter(1, 1, forKey: "key-1")
    let sent = machine.settling { $0.enqueued(self.entry(1), now: self.now) }.delivered[0]
    _ = machine.settling { $0.enqueued(self.entry(2), now: self.now) }

    let removal = machine.delivered(sent, value: "done", now: self.now)
    let failed = machine.settling {
      $0.written(removal.writes[0], error: DiskFull(), now: self.now)
    }
    // NB: The caller learns that its entry was delivered, though the storage failed.
    #expect(failed.resumed.map(\.waiters) == [[1]])
    #expect(failed.resumed.first?.outcome.deliveredValue == "done")
    #expect(failed.reported.count == 1)
    #expect(failed.timers.map(\.delay) == [.milliseconds(100)])
    #expect(failed.delivered.isEmpty)

    let again = machine.settling { $0.timerFired(failed.timers[0].id, now: self.now) }
    #expect(again.writes == removal.writes)
    let failedAgain = machine.settling {
      $0.written(again.writes[0], error: DiskFull(), now: self.now)
    }
    #expect(failedAgain.resumed.isEmpty)
    #expect(failedAgain.timers.map(\.delay) == [.milliseconds(200)])

    let third = machine.settling { $0.timerFired(failedAgain.timers[0].id, now: self.now) }
    let next = machine.settling { $0.written(third.writes[0], error: nil, now: self.now) }
    #expect(next.delivered.map(\.id) == [2])
    #expect(next.resumed.isEmpty)
  }

  @Test func `A Retryable Failure Waits For Its Timer Or The Network's Return`() {
    var machine = self.machine()
    _ = machine.settling { $0.register(kind: "k", now: self.now) }
    _ = machine.settling { $0.resume(entries: [], isOnline: true, now: self.now) }
    let sent = machine.settling { $0.enqueued(self.entry(1), now: self.now) }.delivered[0]
    let failed = machine.deliveryFailed(sent, error: DiskFull(), isPermanent: false, now: self.now)
    #expect(failed.writes.map(\.entry.status) == [.queued])
    // NB: The lane waits for its retry once the entry is given back to it.
    #expect(failed.timers.isEmpty)
    let released = machine.settling { $0.written(failed.writes[0], error: nil, now: self.now) }
    #expect(released.timers.map(\.delay) == [.seconds(1)])

    _ = machine.settling { $0.networkChanged(isOnline: false, now: self.now) }
    let back = machine.settling { $0.networkChanged(isOnline: true, now: self.now) }
    #expect(back.cancelledTimers == [released.timers[0].id])
    #expect(back.delivered.map(\.attempts) == [2])
    #expect(machine.settling { $0.timerFired(released.timers[0].id, now: self.now) }.isEmpty)
  }

  @Test func `The Last Attempt Or A Permanent Failure Ends The Entry As Failed`() {
    var machine = self.machine(maxAttempts: 1)
    _ = machine.settling { $0.register(kind: "k", now: self.now) }
    _ = machine.settling { $0.resume(entries: [], isOnline: true, now: self.now) }
    machine.addWaiter(1, 1, forKey: "key-1")
    let sent = machine.settling { $0.enqueued(self.entry(1), now: self.now) }.delivered[0]
    _ = machine.settling { $0.enqueued(self.entry(2), now: self.now) }
    let failed = machine.deliveryFailed(sent, error: DiskFull(), isPermanent: false, now: self.now)
    #expect(failed.writes.map(\.entry.status) == [.failed])
    let next = machine.settling { $0.written(failed.writes[0], error: nil, now: self.now) }
    #expect(next.resumed.map(\.waiters) == [[1]])
    #expect(next.resumed.first?.outcome.failedEntry?.status == .failed)
    #expect(next.delivered.map(\.id) == [2])
  }

  @Test func `A Cancelled Caller Is Answered Once And The Entry Goes On`() {
    var machine = self.machine()
    _ = machine.settling { $0.register(kind: "k", now: self.now) }
    _ = machine.settling { $0.resume(entries: [], isOnline: true, now: self.now) }
    machine.addWaiter(1, 1, forKey: "key-1")
    machine.addWaiter(2, 2, forKey: "key-1")
    let sent = machine.settling { $0.enqueued(self.entry(1), now: self.now) }.delivered[0]
    #expect(machine.removeWaiter(1, with: CancellationError()).resumed.map(\.waiters) == [[1]])
    #expect(machine.removeWaiter(1, with: CancellationError()).isEmpty)
    let removal = machine.delivered(sent, value: "v", now: self.now)
    let done = machine.settling { $0.written(removal.writes[0], error: nil, now: self.now) }
    #expect(done.resumed.map(\.waiters) == [[2]])
    #expect(machine.waiterCount == 0)
  }

  @Test func `A Resume Leaves Entries Being Enqueued To Their Enqueue`() {
    var machine = self.machine()
    _ = machine.settling { $0.register(kind: "k", now: self.now) }
    machine.beginEnqueue(key: "key-1")
    let resumed = machine.settling {
      $0.resume(entries: [self.entry(1)], isOnline: true, now: self.now)
    }
    #expect(resumed.delivered.isEmpty)
    #expect(
      machine.settling { $0.enqueued(self.entry(1), now: self.now) }.delivered.map(\.id) == [1]
    )
  }

  @Test func `Closing Answers Every Caller And Stops The Lanes`() {
    var machine = self.machine()
    _ = machine.settling { $0.register(kind: "k", now: self.now) }
    _ = machine.settling { $0.resume(entries: [], isOnline: false, now: self.now) }
    machine.addWaiter(1, 1, forKey: "key-1")
    _ = machine.settling { $0.enqueued(self.entry(1), now: self.now) }
    let closed = machine.close(with: MutationOutbox.ClosedError())
    #expect(closed.resumed.map(\.waiters) == [[1]])
    #expect(machine.settling { $0.networkChanged(isOnline: true, now: self.now) }.delivered.isEmpty)
  }

  // MARK: - Claims

  @Test func `A Lane Delivers The Entry The Storage Claims, Not The One It Expected`() {
    var machine = self.machine()
    _ = machine.register(kind: "k", now: self.now)
    _ = machine.resume(entries: [self.entry(1), self.entry(2)], isOnline: true, now: self.now)
    // NB: The claim was asked for by the resume; another worker delivered entry 1 meanwhile.
    var two = self.entry(2)
    two.status = .inFlight
    two.attempts = 1
    let claimed = machine.claimed(lane: "l", .claimed(claim(two, generation: 1)), now: self.now)
    #expect(claimed.delivered.map(\.id) == [2])
    #expect(machine.queuedEntries["l"]?.map(\.id) == [2, 1])
  }

  @Test func `A Lane Held By Another Worker Asks Again When Its Lease Expires`() {
    var machine = self.machine()
    _ = machine.register(kind: "k", now: self.now)
    let resumed = machine.resume(entries: [self.entry(1)], isOnline: true, now: self.now)
    #expect(resumed.claims == ["l"])
    let busy = machine.claimed(
      lane: "l",
      .busy(until: self.now.addingTimeInterval(12)),
      now: self.now
    )
    #expect(busy.timers.map(\.delay) == [.seconds(12)])
    #expect(busy.delivered.isEmpty)
    #expect(machine.timerFired(busy.timers[0].id, now: self.now).claims == ["l"])
  }

  @Test func `A Failed Claim Is Reported And Asked Again After The Storage Delay`() {
    var machine = self.machine()
    _ = machine.register(kind: "k", now: self.now)
    _ = machine.resume(entries: [self.entry(1)], isOnline: true, now: self.now)
    let failed = machine.claimFailed(lane: "l", error: DiskFull(), now: self.now)
    #expect(failed.reported.map(\.id) == [1])
    #expect(failed.timers.map(\.delay) == [.milliseconds(100)])
    let again = machine.settling { $0.timerFired(failed.timers[0].id, now: self.now) }
    #expect(again.delivered.map(\.id) == [1])
  }

  @Test func `An Emptied Lane Tells Its Callers That Their Entries Are Gone`() {
    var machine = self.machine()
    _ = machine.register(kind: "k", now: self.now)
    machine.addWaiter(1, 1, forKey: "key-1")
    _ = machine.resume(entries: [self.entry(1)], isOnline: true, now: self.now)
    let empty = machine.claimed(lane: "l", .empty, now: self.now)
    #expect(empty.resumed.map(\.outcome.summary) == ["gone"])
    #expect(machine.queuedEntries["l"] == nil)
  }

  @Test func `A Claim Is Renewed While Its Entry Is Delivered`() {
    var machine = self.machine()
    _ = machine.register(kind: "k", now: self.now)
    _ = machine.resume(entries: [], isOnline: true, now: self.now)
    let sending = machine.settling { $0.enqueued(self.entry(1), now: self.now) }
    #expect(sending.renewalTimers.map(\.delay) == [.seconds(10)])
    let renewal = machine.timerFired(sending.renewalTimers[0].id, now: self.now)
    #expect(renewal.renewals.map(\.generation) == [1])
    var renewed = renewal.renewals[0]
    renewed.leaseExpiresAt = self.now.addingTimeInterval(40)
    let next = machine.renewed(renewal.renewals[0], result: .success(renewed), now: self.now)
    #expect(next.renewalTimers.count == 1)
    let removal = machine.delivered(sending.delivered[0], value: "v", now: self.now)
    #expect(removal.cancelledTimers == [next.renewalTimers[0].id])
    #expect(machine.timerCount == 0)
  }

  @Test func `A Stale Claim Answers Its Callers, Writes Nothing More, And The Lane Goes On`() {
    var machine = self.machine()
    _ = machine.register(kind: "k", now: self.now)
    _ = machine.resume(entries: [], isOnline: true, now: self.now)
    machine.addWaiter(1, 1, forKey: "key-1")
    let sent = machine.settling { $0.enqueued(self.entry(1), now: self.now) }.delivered[0]
    _ = machine.enqueued(self.entry(2), now: self.now)
    let removal = machine.delivered(sent, value: "late", now: self.now)
    let stale = MutationOutbox.StaleClaimError(claim: sent, currentGeneration: 2)
    let refused = machine.settling { $0.written(removal.writes[0], error: stale, now: self.now) }
    #expect(refused.resumed.map(\.outcome.summary) == ["stale"])
    #expect(refused.reported.map(\.id) == [1])
    #expect(refused.events.contains(.claimLost(sent.entry, error: stale.description)))
    // NB: Neither written again nor kept: the lane goes on with its next entry.
    #expect(refused.timers.isEmpty)
    #expect(refused.delivered.map(\.id) == [2])
  }

  @Test func `A Renewal Found Stale Answers The Callers At Once And Drops The Late Result`() {
    var machine = self.machine()
    _ = machine.register(kind: "k", now: self.now)
    _ = machine.resume(entries: [], isOnline: true, now: self.now)
    machine.addWaiter(1, 1, forKey: "key-1")
    let sending = machine.settling { $0.enqueued(self.entry(1), now: self.now) }
    let renewal = machine.timerFired(sending.renewalTimers[0].id, now: self.now)
    let claim = renewal.renewals[0]
    let lost = machine.renewed(
      claim,
      result: .failure(MutationOutbox.StaleClaimError(claim: claim, currentGeneration: 2)),
      now: self.now
    )
    #expect(lost.resumed.map(\.outcome.summary) == ["stale"])
    let late = machine.delivered(sending.delivered[0], value: "late", now: self.now)
    #expect(late.writes.isEmpty)
    #expect(machine.queuedEntries["l"] == nil)
  }

  // MARK: - Stopping

  @Test func `A Stop Claims Nothing New And Waits For The Delivery In Flight`() {
    var machine = self.machine()
    _ = machine.register(kind: "k", now: self.now)
    _ = machine.resume(entries: [], isOnline: true, now: self.now)
    let sent = machine.settling { $0.enqueued(self.entry(1), now: self.now) }.delivered[0]
    _ = machine.enqueued(self.entry(2), now: self.now)
    _ = machine.stop()
    #expect(!machine.acceptsEnqueues)
    #expect(machine.hasWorkInFlight)
    let removal = machine.delivered(sent, value: "v", now: self.now)
    let done = machine.settling { $0.written(removal.writes[0], error: nil, now: self.now) }
    #expect(done.claims.isEmpty)
    #expect(!machine.hasWorkInFlight)
  }

  @Test func `Abandoning Cancels The Delivery, Gives The Claim Back And Ignores Its End`() {
    var machine = self.machine()
    _ = machine.register(kind: "k", now: self.now)
    _ = machine.resume(entries: [], isOnline: true, now: self.now)
    machine.addWaiter(1, 1, forKey: "key-1")
    let sent = machine.settling { $0.enqueued(self.entry(1), now: self.now) }.delivered[0]
    _ = machine.stop()
    let abandoned = machine.abandon(with: MutationOutbox.ClosedError())
    #expect(abandoned.cancelledDeliveries == [1])
    #expect(abandoned.writes == [.release(sent, lastError: nil)])
    #expect(abandoned.resumed.map(\.outcome.summary) == ["error"])
    #expect(machine.delivered(sent, value: "late", now: self.now).isEmpty)
    _ = machine.written(abandoned.writes[0], error: nil, now: self.now)
    #expect(!machine.hasWorkInFlight)
    #expect(machine.timerCount == 0)
  }

  // MARK: - Generated event sequences

  @Test func `Generated Event Sequences Keep Every Rule`() async {
    // NB: Each number is one event: its remainder by 13 says which, and its quotient which
    // entry, lane, waiter or timer it applies to (see `Harness.apply`).
    await propertyCheck(count: 500, input: Gen.int(in: 0...129).array(of: 0...120)) { events in
      var harness = Harness()
      harness.perform(
        harness.machine.settling { $0.register(kind: "k", now: Date(timeIntervalSince1970: 1_000)) }
      )
      for event in events {
        harness.apply(event)
        harness.checkInvariants()
      }
      harness.drain()
      harness.checkOutcomes()
    }
  }
}

// MARK: - Harness

/// Drives a machine as the outbox does, with a storage that fails on cue and another worker that
/// takes entries over, and keeps a reference model of what must happen to each entry and caller.
private struct Harness {
  var machine = Machine(
    retryDelay: .constant(.seconds(1)),
    maxAttempts: 3,
    storageRetryDelay: .exponential(.milliseconds(100)),
    maxStorageRetryDelay: .seconds(1)
  )
  /// The storage: every entry's stored status, or nothing once removed.
  var storage = [Int64: Entry]()
  /// The generation of each stored entry.
  var generations = [Int64: Int64]()
  var isStorageFailing = false
  var nextID: Int64 = 1
  var nextWaiter = 0
  /// The claims being delivered, by lane.
  var sending = [String: Claim]()
  var timers = Set<Int>()
  /// Reference model: the callers of each key, how each caller was answered, and how each
  /// entry ended.
  var callers = [String: [Int]]()
  var answers = [Int: [String]]()
  var concluded = [Int64: String]()
  var cancelled = Set<Int>()
  var failedEnqueues = Set<Int>()
  /// The order in which each lane's entries were first sent.
  var firstSent = [String: [Int64]]()
  var retriedIDs = Set<Int64>()
  var isOnline = true
  var isResumed = false
  var isLateRegistered = false

  mutating func apply(_ event: Int) {
    let argument = event / 13
    let now = Date(timeIntervalSince1970: 1_000)
    switch event % 13 {
    case 0, 1:
      // Enqueue a new entry, with a caller for most.
      let id = self.nextID
      self.nextID += 1
      let lane = argument % 3 == 0 ? "b" : "a"
      let kind = argument % 5 == 4 ? "late" : "k"
      let entry = queuedEntry(id, lane: lane, kind: kind, at: now)
      if event % 13 == 0 {
        self.addWaiter(forKey: entry.idempotencyKey)
      }
      self.machine.beginEnqueue(key: entry.idempotencyKey)
      if self.isStorageFailing {
        self.machine.enqueueFailed(key: entry.idempotencyKey)
        for waiter in self.callers[entry.idempotencyKey] ?? [] where self.answers[waiter] == nil {
          self.failedEnqueues.insert(waiter)
          self.perform(self.machine.removeWaiter(waiter, with: DiskFull()))
        }
        return
      }
      self.storage[id] = entry
      self.generations[id] = 0
      self.perform(self.machine.enqueued(entry, now: now))
    case 2:
      // A caller cancels.
      guard self.nextWaiter > 0 else { return }
      let waiter = argument % self.nextWaiter
      self.cancelled.insert(waiter)
      self.perform(self.machine.removeWaiter(waiter, with: CancellationError()))
    case 3, 4:
      // A delivery succeeds.
      guard let lane = self.sendingLane(argument) else { return }
      let claim = self.sending.removeValue(forKey: lane)!
      if self.concluded[claim.entry.id] == nil { self.concluded[claim.entry.id] = "delivered" }
      self.perform(self.machine.delivered(claim, value: "value-\(claim.entry.id)", now: now))
    case 5:
      // A delivery fails, permanently for some.
      guard let lane = self.sendingLane(argument) else { return }
      let claim = self.sending.removeValue(forKey: lane)!
      let isPermanent = argument % 2 == 0
      if (isPermanent || claim.entry.attempts >= 3), self.concluded[claim.entry.id] == nil {
        self.concluded[claim.entry.id] = "failed"
      }
      self.perform(
        self.machine.deliveryFailed(claim, error: DiskFull(), isPermanent: isPermanent, now: now)
      )
    case 6:
      self.isStorageFailing.toggle()
    case 7, 8:
      guard !self.timers.isEmpty else { return }
      let timer = self.timers.sorted()[argument % self.timers.count]
      self.timers.remove(timer)
      self.perform(self.machine.timerFired(timer, now: now))
    case 9:
      self.isOnline.toggle()
      self.perform(self.machine.networkChanged(isOnline: self.isOnline, now: now))
    case 10:
      self.isLateRegistered = true
      self.perform(self.machine.register(kind: "late", now: now))
    case 12:
      // Another worker takes over an entry being sent (its lease expired) and delivers it.
      guard let lane = self.sendingLane(argument) else { return }
      let id = self.sending[lane]!.entry.id
      guard self.concluded[id] == nil, self.storage[id] != nil else { return }
      self.concluded[id] = "elsewhere"
      self.storage[id] = nil
      self.generations[id] = nil
    default:
      guard !self.isResumed else {
        // A caller enqueues a key that is stored already (as an outer retry does), and waits.
        guard !self.storage.isEmpty else { return }
        let stored = self.storage.values.sorted { $0.id < $1.id }
        let entry = stored[argument % stored.count]
        let waiter = self.addWaiter(forKey: entry.idempotencyKey)
        self.machine.beginEnqueue(key: entry.idempotencyKey)
        if self.isStorageFailing {
          self.machine.enqueueFailed(key: entry.idempotencyKey)
          self.failedEnqueues.insert(waiter)
          self.perform(self.machine.removeWaiter(waiter, with: DiskFull()))
        } else {
          self.perform(self.machine.enqueued(entry, now: now))
        }
        return
      }
      self.isResumed = true
      self.perform(
        self.machine.resume(entries: [], isOnline: self.isOnline, now: now)
      )
    }
  }

  @discardableResult
  private mutating func addWaiter(forKey key: String) -> Int {
    let waiter = self.nextWaiter
    self.nextWaiter += 1
    self.callers[key, default: []].append(waiter)
    self.machine.addWaiter(waiter, waiter, forKey: key)
    return waiter
  }

  private func sendingLane(_ argument: Int) -> String? {
    guard !self.sending.isEmpty else { return nil }
    let lanes = self.sending.keys.sorted()
    return lanes[argument % lanes.count]
  }

  /// The stored generation, or the error of a stale claim.
  private func check(_ claim: Claim) -> MutationOutbox.StaleClaimError? {
    let current = self.generations[claim.entry.id]
    guard current == claim.generation else {
      return MutationOutbox.StaleClaimError(claim: claim, currentGeneration: current)
    }
    return nil
  }

  /// Performs actions as the outbox does: calls of the storage at once, on the storage that may
  /// fail, as one worker of several.
  mutating func perform(_ actions: [Machine.Action]) {
    var queue = actions[...]
    let now = Date(timeIntervalSince1970: 1_000)
    while let action = queue.popFirst() {
      switch action {
      case .claim(let lane):
        guard !self.isStorageFailing else {
          queue.append(
            contentsOf: self.machine.claimFailed(lane: lane, error: DiskFull(), now: now)
          )
          continue
        }
        let next = self.storage.values.filter { $0.lane == lane && $0.status != .failed }
          .min { $0.id < $1.id }
        guard var entry = next else {
          queue.append(contentsOf: self.machine.claimed(lane: lane, .empty, now: now))
          continue
        }
        entry.status = .inFlight
        entry.attempts += 1
        self.storage[entry.id] = entry
        self.generations[entry.id]! += 1
        let claim = Claim(
          entry: entry,
          worker: "this worker",
          generation: self.generations[entry.id]!,
          leaseExpiresAt: now.addingTimeInterval(30)
        )
        queue.append(contentsOf: self.machine.claimed(lane: lane, .claimed(claim), now: now))
      case .renew(let claim):
        let result: Result<Claim, any Error> =
          if let stale = self.check(claim) {
            .failure(stale)
          } else if self.isStorageFailing {
            .failure(DiskFull())
          } else {
            .success(claim)
          }
        queue.append(contentsOf: self.machine.renewed(claim, result: result, now: now))
      case .write(let write):
        var error: (any Error)? = self.check(write.claim)
        if error == nil, self.isStorageFailing { error = DiskFull() }
        if error == nil {
          let id = write.entry.id
          switch write {
          case .release(let claim, _):
            self.storage[id]?.status = .queued
            self.storage[id]?.lastError = claim.entry.lastError
          case .conclude(.failed(let claim)):
            self.storage[id] = claim.entry
          case .conclude(.delivered):
            self.storage[id] = nil
            self.generations[id] = nil
          }
        }
        queue.append(contentsOf: self.machine.written(write, error: error, now: now))
      case .deliver(let claim, _):
        let entry = claim.entry
        #expect(self.sending[entry.lane] == nil, "Two entries of lane \(entry.lane) in flight")
        #expect(self.isOnline && self.isResumed, "Sent while offline or before resume")
        #expect(self.concluded[entry.id] == nil, "Entry \(entry.id) sent after it ended")
        #expect(entry.kind == "k" || self.isLateRegistered, "Sent before its kind's mutation")
        if entry.attempts == 1 { self.firstSent[entry.lane, default: []].append(entry.id) }
        self.sending[entry.lane] = claim
      case .startTimer(let timer, _), .startRenewalTimer(let timer, _):
        self.timers.insert(timer)
      case .cancelTimer(let timer):
        self.timers.remove(timer)
      case .resume(let waiters, let outcome):
        for waiter in waiters {
          self.answers[waiter, default: []].append(outcome.summary)
        }
      case .notify, .reportStorageFailure, .cancelDelivery:
        break
      }
    }
  }

  func checkInvariants() {
    for (waiter, answers) in self.answers {
      #expect(answers.count == 1, "Caller \(waiter) answered \(answers)")
    }
    for (lane, ids) in self.firstSent {
      #expect(ids == ids.sorted(), "Lane \(lane) sent \(ids) out of order")
    }
    #expect(self.machine.timerCount == self.timers.count)
    // NB: Once a delivery ends, its callers know at once, whatever the storage does.
    for (id, end) in self.concluded where end != "elsewhere" {
      guard !self.sending.values.contains(where: { $0.entry.id == id }) else { continue }
      for waiter in self.callers["key-\(id)"] ?? [] {
        #expect(self.answers[waiter] != nil, "Caller \(waiter) of ended entry \(id) waits")
      }
    }
  }

  /// Lets every delivery succeed, on a healthy storage, online, until nothing is left to do.
  mutating func drain() {
    let now = Date(timeIntervalSince1970: 1_000)
    self.isStorageFailing = false
    if !self.isOnline {
      self.isOnline = true
      self.perform(self.machine.networkChanged(isOnline: true, now: now))
    }
    self.isLateRegistered = true
    self.perform(self.machine.register(kind: "late", now: now))
    if !self.isResumed {
      self.isResumed = true
      self.perform(self.machine.resume(entries: [], isOnline: true, now: now))
    }
    while !self.sending.isEmpty || !self.timers.isEmpty {
      if let lane = self.sending.keys.sorted().first {
        let claim = self.sending.removeValue(forKey: lane)!
        if self.concluded[claim.entry.id] == nil { self.concluded[claim.entry.id] = "delivered" }
        self.perform(self.machine.delivered(claim, value: "value-\(claim.entry.id)", now: now))
      } else if let timer = self.timers.min() {
        self.timers.remove(timer)
        self.perform(self.machine.timerFired(timer, now: now))
      }
    }
  }

  func checkOutcomes() {
    // Every entry ended: removed once delivered (here or by the other worker), kept once failed.
    for id in 1..<self.nextID {
      switch self.concluded[id] {
      case "delivered", "elsewhere":
        #expect(self.storage[id] == nil, "Delivered entry \(id) still stored")
      case "failed": #expect(self.storage[id]?.status == .failed, "Entry \(id) not kept failed")
      default: #expect(self.storage[id] == nil, "Entry \(id) neither delivered nor failed")
      }
    }
    #expect(self.machine.queuedEntries.values.allSatisfy { $0.isEmpty })
    #expect(self.machine.waiterCount == 0)
    // Every caller was answered exactly once, with its entry's outcome unless it was cancelled
    // first or its entry could not be written; the callers of an entry another worker took over
    // learn that this worker's claim is stale.
    for (key, waiters) in self.callers {
      let id = Int64(key.dropFirst("key-".count))!
      for waiter in waiters {
        let answers = self.answers[waiter] ?? []
        #expect(answers.count == 1, "Caller \(waiter) of \(key) answered \(answers)")
        guard let answer = answers.first else { continue }
        let expected: Set<String> =
          switch self.concluded[id] {
          case "delivered": ["delivered value-\(id)"]
          case "failed": ["failed \(id)"]
          case "elsewhere": ["stale"]
          default: []
          }
        let acceptable = expected.union(["error", "unregistered"])
        #expect(acceptable.contains(answer), "Caller \(waiter) of \(key) got \(answer)")
        if answer == "error" {
          #expect(
            self.cancelled.contains(waiter) || self.failedEnqueues.contains(waiter),
            "Caller \(waiter) of \(key) got an error without cause"
          )
        }
      }
    }
  }
}

private struct DiskFull: Error {}

private typealias Claim = MutationOutbox.Claim

/// A new entry, as the storage returns it, keyed `key-<id>`.
private func queuedEntry(_ id: Int64, lane: String, kind: String, at date: Date) -> Entry {
  Entry(
    id: id,
    kind: kind,
    lane: lane,
    idempotencyKey: "key-\(id)",
    arguments: Data(),
    status: .queued,
    attempts: 0,
    lastError: nil,
    enqueuedAt: date,
    updatedAt: date
  )
}

/// A claim of `entry` by this test's worker.
private func claim(_ entry: Entry, generation: Int64) -> Claim {
  Claim(
    entry: entry,
    worker: "this worker",
    generation: generation,
    leaseExpiresAt: entry.updatedAt.addingTimeInterval(30)
  )
}

// MARK: - Answering claims

extension Machine {
  /// Performs `event`, then answers every claim it asks for (and those that follow) as a storage
  /// with one worker does: the lane's expected head, in flight, with one more attempt.
  fileprivate mutating func settling(_ event: (inout Self) -> [Action]) -> [Action] {
    var actions = [Action]()
    var queue = event(&self)[...]
    while let action = queue.popFirst() {
      actions.append(action)
      guard case .claim(let lane) = action, var entry = self.queuedEntries[lane]?.first else {
        continue
      }
      entry.status = .inFlight
      entry.attempts += 1
      let generation = Int64(entry.attempts)
      queue.append(
        contentsOf: self.claimed(
          lane: lane,
          .claimed(claim(entry, generation: generation)),
          now: entry.updatedAt
        )
      )
    }
    return actions
  }
}

extension Claim {
  fileprivate var id: Int64 { self.entry.id }
  fileprivate var attempts: Int { self.entry.attempts }
  fileprivate var status: Entry.Status { self.entry.status }
}

// MARK: - Reading actions

extension Machine.Outcome {
  fileprivate var summary: String {
    switch self {
    case .delivered(let value): "delivered \(value)"
    case .failed(let entry, _): "failed \(entry.id)"
    case .error(is MutationOutbox.UnregisteredKindError): "unregistered"
    case .error(is MutationOutbox.StaleClaimError): "stale"
    case .error(is MutationOutbox.EntryGoneError): "gone"
    case .error: "error"
    }
  }

  fileprivate var deliveredValue: String? {
    if case .delivered(let value) = self { return value }
    return nil
  }

  fileprivate var failedEntry: Entry? {
    if case .failed(let entry, _) = self { return entry }
    return nil
  }
}

extension [Machine.Action] {
  fileprivate var delivered: [Claim] {
    self.compactMap {
      if case .deliver(let claim, _) = $0 { return claim }
      return nil
    }
  }

  fileprivate var claims: [String] {
    self.compactMap {
      if case .claim(let lane) = $0 { return lane }
      return nil
    }
  }

  fileprivate var renewals: [Claim] {
    self.compactMap {
      if case .renew(let claim) = $0 { return claim }
      return nil
    }
  }

  fileprivate var writes: [Machine.Write] {
    self.compactMap {
      if case .write(let write) = $0 { return write }
      return nil
    }
  }

  fileprivate var resumed: [(waiters: [Int], outcome: Machine.Outcome)] {
    self.compactMap {
      if case .resume(let waiters, let outcome) = $0 { return (waiters, outcome) }
      return nil
    }
  }

  fileprivate var timers: [(id: Int, delay: OperationDuration)] {
    self.compactMap {
      if case .startTimer(let id, let delay) = $0 { return (id, delay) }
      return nil
    }
  }

  fileprivate var renewalTimers: [(id: Int, delay: OperationDuration)] {
    self.compactMap {
      if case .startRenewalTimer(let id, let delay) = $0 { return (id, delay) }
      return nil
    }
  }

  fileprivate var cancelledTimers: [Int] {
    self.compactMap {
      if case .cancelTimer(let id) = $0 { return id }
      return nil
    }
  }

  fileprivate var cancelledDeliveries: [Int64] {
    self.compactMap {
      if case .cancelDelivery(let id) = $0 { return id }
      return nil
    }
  }

  fileprivate var events: [MutationOutbox.Event] {
    self.compactMap {
      if case .notify(let event) = $0 { return event }
      return nil
    }
  }

  fileprivate var reported: [Entry] {
    self.compactMap {
      if case .reportStorageFailure(let entry, _) = $0 { return entry }
      return nil
    }
  }
}
