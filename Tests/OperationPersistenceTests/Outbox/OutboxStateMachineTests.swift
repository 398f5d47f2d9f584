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
    _ = machine.register(kind: "k", now: self.now)
    _ = machine.resume(entries: [], isOnline: true, now: self.now)
    let first = machine.enqueued(self.entry(2), now: self.now)
    #expect(first.delivered.map(\.id) == [2])
    #expect(machine.enqueued(self.entry(3), now: self.now).delivered.isEmpty)
    // NB: An entry whose write finished after a later one's still goes before it.
    #expect(
      machine.enqueued(self.entry(1, lane: "other"), now: self.now).delivered.map(\.id) == [1]
    )

    let removal = machine.delivered(first.delivered[0], value: "two", now: self.now)
    #expect(removal.writes == [.conclude(.delivered(first.delivered[0]))])
    let next = machine.written(removal.writes[0], error: nil, now: self.now)
    #expect(next.delivered.map(\.id) == [3])
    #expect(next.delivered.first?.attempts == 1)
    #expect(next.delivered.first?.status == .inFlight)
  }

  @Test func `Nothing Is Sent Before Resume, Offline, Or Without The Kind's Mutation`() {
    var machine = self.machine()
    machine.addWaiter(7, 7, forKey: "key-1")
    #expect(machine.enqueued(self.entry(1), now: self.now).delivered.isEmpty)
    let resumed = machine.resume(entries: [self.entry(1)], isOnline: false, now: self.now)
    #expect(resumed.delivered.isEmpty)
    // NB: Online, the lane finds no mutation for the kind: its caller is told, the entry stays.
    let online = machine.networkChanged(isOnline: true, now: self.now)
    #expect(online.delivered.isEmpty)
    #expect(online.resumed.map(\.waiters) == [[7]])
    #expect(machine.queuedEntries["l"]?.map(\.id) == [1])
    #expect(machine.register(kind: "k", now: self.now).delivered.map(\.id) == [1])
  }

  @Test func `A Failed Removal After Delivery Answers The Caller And Is Written Again`() {
    var machine = self.machine()
    _ = machine.register(kind: "k", now: self.now)
    _ = machine.resume(entries: [], isOnline: true, now: self.now)
    machine.addWaiter(1, 1, forKey: "key-1")
    let sent = machine.enqueued(self.entry(1), now: self.now).delivered[0]
    _ = machine.enqueued(self.entry(2), now: self.now)

    let removal = machine.delivered(sent, value: "done", now: self.now)
    let failed = machine.written(removal.writes[0], error: DiskFull(), now: self.now)
    // NB: The caller learns that its entry was delivered, though the storage failed.
    #expect(failed.resumed.map(\.waiters) == [[1]])
    #expect(failed.resumed.first?.outcome.deliveredValue == "done")
    #expect(failed.reported.count == 1)
    #expect(failed.timers.map(\.delay) == [.milliseconds(100)])
    #expect(failed.delivered.isEmpty)

    let again = machine.timerFired(failed.timers[0].id, now: self.now)
    #expect(again.writes == removal.writes)
    let failedAgain = machine.written(again.writes[0], error: DiskFull(), now: self.now)
    #expect(failedAgain.resumed.isEmpty)
    #expect(failedAgain.timers.map(\.delay) == [.milliseconds(200)])

    let third = machine.timerFired(failedAgain.timers[0].id, now: self.now)
    let next = machine.written(third.writes[0], error: nil, now: self.now)
    #expect(next.delivered.map(\.id) == [2])
    #expect(next.resumed.isEmpty)
  }

  @Test func `A Retryable Failure Waits For Its Timer Or The Network's Return`() {
    var machine = self.machine()
    _ = machine.register(kind: "k", now: self.now)
    _ = machine.resume(entries: [], isOnline: true, now: self.now)
    let sent = machine.enqueued(self.entry(1), now: self.now).delivered[0]
    let failed = machine.deliveryFailed(sent, error: DiskFull(), isPermanent: false, now: self.now)
    #expect(failed.writes.map(\.entry.status) == [.queued])
    #expect(failed.timers.map(\.delay) == [.seconds(1)])

    _ = machine.networkChanged(isOnline: false, now: self.now)
    let back = machine.networkChanged(isOnline: true, now: self.now)
    #expect(back.cancelledTimers == [failed.timers[0].id])
    #expect(back.delivered.map(\.attempts) == [2])
    #expect(machine.timerFired(failed.timers[0].id, now: self.now).isEmpty)
  }

  @Test func `The Last Attempt Or A Permanent Failure Ends The Entry As Failed`() {
    var machine = self.machine(maxAttempts: 1)
    _ = machine.register(kind: "k", now: self.now)
    _ = machine.resume(entries: [], isOnline: true, now: self.now)
    machine.addWaiter(1, 1, forKey: "key-1")
    let sent = machine.enqueued(self.entry(1), now: self.now).delivered[0]
    _ = machine.enqueued(self.entry(2), now: self.now)
    let failed = machine.deliveryFailed(sent, error: DiskFull(), isPermanent: false, now: self.now)
    #expect(failed.writes.map(\.entry.status) == [.failed])
    let next = machine.written(failed.writes[0], error: nil, now: self.now)
    #expect(next.resumed.map(\.waiters) == [[1]])
    #expect(next.resumed.first?.outcome.failedEntry?.status == .failed)
    #expect(next.delivered.map(\.id) == [2])
  }

  @Test func `A Cancelled Caller Is Answered Once And The Entry Goes On`() {
    var machine = self.machine()
    _ = machine.register(kind: "k", now: self.now)
    _ = machine.resume(entries: [], isOnline: true, now: self.now)
    machine.addWaiter(1, 1, forKey: "key-1")
    machine.addWaiter(2, 2, forKey: "key-1")
    let sent = machine.enqueued(self.entry(1), now: self.now).delivered[0]
    #expect(machine.removeWaiter(1, with: CancellationError()).resumed.map(\.waiters) == [[1]])
    #expect(machine.removeWaiter(1, with: CancellationError()).isEmpty)
    let removal = machine.delivered(sent, value: "v", now: self.now)
    let done = machine.written(removal.writes[0], error: nil, now: self.now)
    #expect(done.resumed.map(\.waiters) == [[2]])
    #expect(machine.waiterCount == 0)
  }

  @Test func `A Resume Leaves Entries Being Enqueued To Their Enqueue`() {
    var machine = self.machine()
    _ = machine.register(kind: "k", now: self.now)
    machine.beginEnqueue(key: "key-1")
    let resumed = machine.resume(entries: [self.entry(1)], isOnline: true, now: self.now)
    #expect(resumed.delivered.isEmpty)
    #expect(machine.enqueued(self.entry(1), now: self.now).delivered.map(\.id) == [1])
  }

  @Test func `Closing Answers Every Caller And Stops The Lanes`() {
    var machine = self.machine()
    _ = machine.register(kind: "k", now: self.now)
    _ = machine.resume(entries: [], isOnline: false, now: self.now)
    machine.addWaiter(1, 1, forKey: "key-1")
    _ = machine.enqueued(self.entry(1), now: self.now)
    let closed = machine.close(with: MutationOutbox.ClosedError())
    #expect(closed.resumed.map(\.waiters) == [[1]])
    #expect(machine.networkChanged(isOnline: true, now: self.now).delivered.isEmpty)
  }

  // MARK: - Generated event sequences

  @Test func `Generated Event Sequences Keep Every Rule`() async {
    // NB: Each number is one event: its remainder by 12 says which, and its quotient which
    // entry, lane, waiter or timer it applies to (see `Harness.apply`).
    await propertyCheck(count: 500, input: Gen.int(in: 0...119).array(of: 0...120)) { events in
      var harness = Harness()
      harness.perform(harness.machine.register(kind: "k", now: Date(timeIntervalSince1970: 1_000)))
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

/// Drives a machine as the outbox does, with a storage that fails on cue, and keeps a reference
/// model of what must happen to each entry and caller.
private struct Harness {
  var machine = Machine(
    retryDelay: .constant(.seconds(1)),
    maxAttempts: 3,
    storageRetryDelay: .exponential(.milliseconds(100)),
    maxStorageRetryDelay: .seconds(1)
  )
  /// The storage: every entry's stored status, or nothing once removed.
  var storage = [Int64: Entry]()
  var isStorageFailing = false
  var nextID: Int64 = 1
  var nextWaiter = 0
  /// The entries being sent, by lane.
  var sending = [String: Entry]()
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
    let argument = event / 12
    let now = Date(timeIntervalSince1970: 1_000)
    switch event % 12 {
    case 0, 1:
      // Enqueue a new entry, with a caller for most.
      let id = self.nextID
      self.nextID += 1
      let lane = argument % 3 == 0 ? "b" : "a"
      let kind = argument % 5 == 4 ? "late" : "k"
      let entry = queuedEntry(id, lane: lane, kind: kind, at: now)
      if event % 12 == 0 {
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
      let entry = self.sending.removeValue(forKey: lane)!
      self.concluded[entry.id] = "delivered"
      self.perform(self.machine.delivered(entry, value: "value-\(entry.id)", now: now))
    case 5:
      // A delivery fails, permanently for some.
      guard let lane = self.sendingLane(argument) else { return }
      let entry = self.sending.removeValue(forKey: lane)!
      let isPermanent = argument % 2 == 0
      if isPermanent || entry.attempts >= 3 {
        self.concluded[entry.id] = "failed"
      }
      self.perform(
        self.machine.deliveryFailed(entry, error: DiskFull(), isPermanent: isPermanent, now: now)
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

  /// Performs actions as the outbox does: writes at once, on the storage that may fail.
  mutating func perform(_ actions: [Machine.Action]) {
    var queue = actions[...]
    let now = Date(timeIntervalSince1970: 1_000)
    while let action = queue.popFirst() {
      switch action {
      case .write(let write):
        let error: (any Error)? = self.isStorageFailing ? DiskFull() : nil
        if error == nil {
          switch write {
          case .markInFlight(let entry), .requeue(let entry), .conclude(.failed(let entry)):
            if self.storage[entry.id] != nil { self.storage[entry.id] = entry }
          case .conclude(.delivered(let entry)):
            self.storage[entry.id] = nil
          }
        }
        queue.append(contentsOf: self.machine.written(write, error: error, now: now))
      case .deliver(let entry, _):
        #expect(self.sending[entry.lane] == nil, "Two entries of lane \(entry.lane) in flight")
        #expect(self.isOnline && self.isResumed, "Sent while offline or before resume")
        #expect(self.concluded[entry.id] == nil, "Entry \(entry.id) sent after it ended")
        #expect(entry.kind == "k" || self.isLateRegistered, "Sent before its kind's mutation")
        if entry.attempts == 1 { self.firstSent[entry.lane, default: []].append(entry.id) }
        self.sending[entry.lane] = entry
      case .startTimer(let timer, _):
        self.timers.insert(timer)
      case .cancelTimer(let timer):
        self.timers.remove(timer)
      case .resume(let waiters, let outcome):
        for waiter in waiters {
          self.answers[waiter, default: []].append(outcome.summary)
        }
      case .notify, .reportStorageFailure:
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
    for id in self.concluded.keys {
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
        let entry = self.sending.removeValue(forKey: lane)!
        self.concluded[entry.id] = "delivered"
        self.perform(self.machine.delivered(entry, value: "value-\(entry.id)", now: now))
      } else if let timer = self.timers.min() {
        self.timers.remove(timer)
        self.perform(self.machine.timerFired(timer, now: now))
      }
    }
  }

  func checkOutcomes() {
    // Every entry ended: removed once delivered, kept once failed.
    for id in 1..<self.nextID {
      switch self.concluded[id] {
      case "delivered": #expect(self.storage[id] == nil, "Delivered entry \(id) still stored")
      case "failed": #expect(self.storage[id]?.status == .failed, "Entry \(id) not kept failed")
      default: #expect(self.storage[id] == nil, "Entry \(id) neither delivered nor failed")
      }
    }
    #expect(self.machine.queuedEntries.values.allSatisfy { $0.isEmpty })
    #expect(self.machine.waiterCount == 0)
    // Every caller was answered exactly once, with its entry's outcome unless it was cancelled
    // first or its entry could not be written.
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

// MARK: - Reading actions

extension Machine.Outcome {
  fileprivate var summary: String {
    switch self {
    case .delivered(let value): "delivered \(value)"
    case .failed(let entry, _): "failed \(entry.id)"
    case .error(is MutationOutbox.UnregisteredKindError): "unregistered"
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
  fileprivate var delivered: [Entry] {
    self.compactMap {
      if case .deliver(let entry, _) = $0 { return entry }
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

  fileprivate var cancelledTimers: [Int] {
    self.compactMap {
      if case .cancelTimer(let id) = $0 { return id }
      return nil
    }
  }

  fileprivate var reported: [Machine.Write] {
    self.compactMap {
      if case .reportStorageFailure(let write, _) = $0 { return write }
      return nil
    }
  }
}
