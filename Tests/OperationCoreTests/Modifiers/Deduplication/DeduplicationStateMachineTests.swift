import OperationCore
import PropertyBased
import Testing

/// The machine as these tests drive it: a caller's context is a key (callers with equal keys are
/// duplicates), a caller's continuation is its own id, and a run's task is the run's id.
private typealias Machine = DeduplicationStateMachine<Int, Int, Int>

@Suite struct `DeduplicationStateMachine tests` {
  // MARK: - Joining

  @Test func `The First Caller Starts A Run`() {
    var machine = Machine(stopsWaitingOnCancellation: true)
    #expect(machine.candidate(from: 0) == nil)
    let action = machine.join(
      1,
      1,
      context: 0,
      choosing: nil,
      consideredBefore: 0,
      isCancelled: false
    )
    #expect(action.started == 0)
    #expect(machine.joinableRuns.map(\.waiters) == [[1]])
  }

  @Test func `A Caller Joins The Run It Chose While It Is Joinable`() {
    var machine = Machine(stopsWaitingOnCancellation: true)
    _ = machine.join(1, 1, context: 0, choosing: nil, consideredBefore: 0, isCancelled: false)
    let candidate = machine.candidate(from: 0)
    #expect(candidate?.id == 0)
    #expect(candidate?.context == 0)
    let action = machine.join(
      2,
      2,
      context: 0,
      choosing: 0,
      consideredBefore: 1,
      isCancelled: false
    )
    #expect(action.isWait)
    #expect(machine.joinableRuns.map(\.waiters) == [[1, 2]])
  }

  @Test func `A Caller That Chose No Run Starts One Beside The Runs It Considered`() {
    var machine = Machine(stopsWaitingOnCancellation: true)
    _ = machine.join(1, 1, context: 0, choosing: nil, consideredBefore: 0, isCancelled: false)
    let action = machine.join(
      2,
      2,
      context: 1,
      choosing: nil,
      consideredBefore: 1,
      isCancelled: false
    )
    #expect(action.started == 1)
    #expect(machine.joinableRuns.map(\.id) == [0, 1])
    #expect(machine.candidate(from: 1)?.context == 1)
  }

  @Test func `A Caller Reconsiders When A Run Started Since It Looked`() {
    var machine = Machine(stopsWaitingOnCancellation: true)
    // NB: Caller 2 looked when nothing was in flight; caller 1 started a run since.
    _ = machine.join(1, 1, context: 0, choosing: nil, consideredBefore: 0, isCancelled: false)
    let action = machine.join(
      2,
      2,
      context: 0,
      choosing: nil,
      consideredBefore: 0,
      isCancelled: false
    )
    #expect(action.reconsideredFrom == 0)
    #expect(machine.joinableRuns.map(\.waiters) == [[1]])
  }

  @Test func `A Caller Whose Chosen Run Finished Meanwhile Starts A New Run`() {
    var machine = Machine(stopsWaitingOnCancellation: true)
    _ = machine.join(1, 1, context: 0, choosing: nil, consideredBefore: 0, isCancelled: false)
    _ = machine.taskCreated(0, for: 0)
    #expect(machine.finish(0) == [1])
    let action = machine.join(
      2,
      2,
      context: 0,
      choosing: 0,
      consideredBefore: 1,
      isCancelled: false
    )
    #expect(action.started == 1)
  }

  @Test func `A Caller Whose Chosen Run Lost Its Callers Meanwhile Starts A New Run`() {
    var machine = Machine(stopsWaitingOnCancellation: true)
    _ = machine.join(1, 1, context: 0, choosing: nil, consideredBefore: 0, isCancelled: false)
    _ = machine.taskCreated(0, for: 0)
    #expect(machine.cancel(1).cancelledWaiterAndTask == [1, 0])
    let action = machine.join(
      2,
      2,
      context: 0,
      choosing: 0,
      consideredBefore: 1,
      isCancelled: false
    )
    #expect(action.started == 1)
  }

  @Test func `A Caller Whose Chosen Run Finished Reconsiders Runs That Started Since`() {
    var machine = Machine(stopsWaitingOnCancellation: true)
    _ = machine.join(1, 1, context: 0, choosing: nil, consideredBefore: 0, isCancelled: false)
    _ = machine.taskCreated(0, for: 0)
    _ = machine.finish(0)
    _ = machine.join(2, 2, context: 0, choosing: nil, consideredBefore: 1, isCancelled: false)
    let action = machine.join(
      3,
      3,
      context: 0,
      choosing: 0,
      consideredBefore: 1,
      isCancelled: false
    )
    #expect(action.reconsideredFrom == 1)
  }

  @Test func `A Caller Cancelled Before It Joins Is Answered With Cancellation`() {
    var machine = Machine(stopsWaitingOnCancellation: true)
    let action = machine.join(
      1,
      1,
      context: 0,
      choosing: nil,
      consideredBefore: 0,
      isCancelled: true
    )
    #expect(action.resumedCancelled == 1)
    #expect(machine.isIdle)
  }

  @Test func `A Caller Cancelled Before It Joins Joins When The Failure Cannot Hold Cancellation`()
  {
    var machine = Machine(stopsWaitingOnCancellation: false)
    let action = machine.join(
      1,
      1,
      context: 0,
      choosing: nil,
      consideredBefore: 0,
      isCancelled: true
    )
    #expect(action.started == 0)
  }

  @Test func `Candidates Are The Joinable Runs From An Id, Oldest First`() {
    var machine = Machine(stopsWaitingOnCancellation: true)
    _ = machine.join(1, 1, context: 7, choosing: nil, consideredBefore: 0, isCancelled: false)
    _ = machine.join(2, 2, context: 8, choosing: nil, consideredBefore: 1, isCancelled: false)
    _ = machine.join(3, 3, context: 9, choosing: nil, consideredBefore: 2, isCancelled: false)
    _ = machine.cancel(2)
    #expect(machine.candidate(from: 0)?.context == 7)
    #expect(machine.candidate(from: 1)?.context == 9)
    #expect(machine.candidate(from: 3) == nil)
  }

  // MARK: - Tasks and results

  @Test func `A Run's Result Goes To Each Of Its Callers In The Order They Joined`() {
    var machine = Machine(stopsWaitingOnCancellation: true)
    _ = machine.join(1, 1, context: 0, choosing: nil, consideredBefore: 0, isCancelled: false)
    _ = machine.join(2, 2, context: 1, choosing: nil, consideredBefore: 1, isCancelled: false)
    _ = machine.join(3, 3, context: 0, choosing: 0, consideredBefore: 1, isCancelled: false)
    #expect(machine.taskCreated(0, for: 0).isNone)
    #expect(machine.finish(0) == [1, 3])
    #expect(machine.joinableRuns.map(\.id) == [1])
    #expect(machine.candidate(from: 0)?.id == 1)
  }

  @Test func `A Run That Finishes Before Its Task Is Attached Leaves The Task Alone`() {
    var machine = Machine(stopsWaitingOnCancellation: true)
    _ = machine.join(1, 1, context: 0, choosing: nil, consideredBefore: 0, isCancelled: false)
    #expect(machine.finish(0) == [1])
    #expect(!machine.isIdle)
    #expect(machine.taskCreated(0, for: 0).isNone)
    #expect(machine.isIdle)
  }

  // MARK: - Cancellation

  @Test func `A Cancelled Caller Stops Waiting While The Run Goes On For The Others`() {
    var machine = Machine(stopsWaitingOnCancellation: true)
    _ = machine.join(1, 1, context: 0, choosing: nil, consideredBefore: 0, isCancelled: false)
    _ = machine.join(2, 2, context: 0, choosing: 0, consideredBefore: 1, isCancelled: false)
    _ = machine.taskCreated(0, for: 0)
    #expect(machine.cancel(2).resumedCancelled == 2)
    #expect(machine.joinableRuns.map(\.waiters) == [[1]])
    #expect(machine.finish(0) == [1])
  }

  @Test func `A Run That Loses Its Last Caller Is Cancelled And Is No Longer Joinable`() {
    var machine = Machine(stopsWaitingOnCancellation: true)
    _ = machine.join(1, 1, context: 0, choosing: nil, consideredBefore: 0, isCancelled: false)
    _ = machine.taskCreated(0, for: 0)
    #expect(machine.cancel(1).cancelledWaiterAndTask == [1, 0])
    #expect(machine.candidate(from: 0) == nil)
    #expect(machine.joinableRuns.isEmpty)
    #expect(machine.finish(0) == [])
    #expect(machine.isIdle)
  }

  @Test func `A Run That Loses Its Last Caller Before Its Task Exists Cancels The Task Later`() {
    var machine = Machine(stopsWaitingOnCancellation: true)
    _ = machine.join(1, 1, context: 0, choosing: nil, consideredBefore: 0, isCancelled: false)
    #expect(machine.cancel(1).resumedCancelled == 1)
    #expect(machine.candidate(from: 0) == nil)
    #expect(machine.taskCreated(0, for: 0).cancelledTask == 0)
    #expect(machine.finish(0) == [])
    #expect(machine.isIdle)
  }

  @Test func `Cancelling A Caller That Has Its Result Or Has Not Joined Does Nothing`() {
    var machine = Machine(stopsWaitingOnCancellation: true)
    _ = machine.join(1, 1, context: 0, choosing: nil, consideredBefore: 0, isCancelled: false)
    _ = machine.taskCreated(0, for: 0)
    _ = machine.finish(0)
    #expect(machine.cancel(1).isNone)
    #expect(machine.cancel(2).isNone)
  }

  @Test func `A Cancelled Caller Keeps Waiting When The Failure Cannot Hold Cancellation`() {
    var machine = Machine(stopsWaitingOnCancellation: false)
    _ = machine.join(1, 1, context: 0, choosing: nil, consideredBefore: 0, isCancelled: false)
    _ = machine.taskCreated(0, for: 0)
    #expect(machine.cancel(1).isNone)
    #expect(machine.joinableRuns.map(\.waiters) == [[1]])
    #expect(machine.finish(0) == [1])
  }

  @Test func `Cancelling Thousands Of Callers In Any Order Answers Each And Cancels The Run Last`()
  {
    var machine = Machine(stopsWaitingOnCancellation: true)
    let count = 10_000
    _ = machine.join(0, 0, context: 0, choosing: nil, consideredBefore: 0, isCancelled: false)
    #expect(machine.taskCreated(99, for: 0).isNone)
    for waiter in 1..<count {
      _ = machine.join(
        waiter,
        waiter,
        context: 0,
        choosing: 0,
        consideredBefore: 1,
        isCancelled: false
      )
    }
    // NB: Every other caller from the front, then the rest from the back: holes in the middle,
    // at the end, and runs of them, which the machine squeezes out as they outnumber the callers.
    let order =
      Array(stride(from: 0, to: count, by: 2)) + Array(stride(from: 1, to: count, by: 2)).reversed()
    var answered = [Int]()
    for (position, waiter) in order.enumerated() {
      let action = machine.cancel(waiter)
      let isLast = position == order.count - 1
      if isLast {
        #expect(action.cancelledWaiterAndTask == [waiter, 99])
        answered.append(waiter)
      } else if let resumed = action.resumedCancelled {
        answered.append(resumed)
      }
      #expect(machine.waiterCount == count - position - 1)
      #expect(machine.waiterSlotCount <= 2 * machine.waiterCount)
    }
    #expect(answered == order)
    #expect(machine.cancel(0).isNone)
    #expect(machine.finish(0) == [])
    #expect(machine.isIdle)
  }

  @Test func `Callers Keep Their Order When Others Leave Before The Run Finishes`() {
    var machine = Machine(stopsWaitingOnCancellation: true)
    for waiter in 0..<40 {
      _ = machine.join(
        waiter,
        waiter,
        context: 0,
        choosing: waiter == 0 ? nil : 0,
        consideredBefore: waiter == 0 ? 0 : 1,
        isCancelled: false
      )
    }
    for waiter in stride(from: 0, to: 40, by: 4) {
      #expect(machine.cancel(waiter).resumedCancelled == waiter)
    }
    for waiter in 10..<30 {
      #expect(machine.cancel(waiter).resumedCancelled == waiter || waiter % 4 == 0)
    }
    _ = machine.join(40, 40, context: 0, choosing: 0, consideredBefore: 1, isCancelled: false)
    // NB: A caller that joins after a squeeze is found where it is when it leaves.
    #expect(machine.cancel(41).isNone)
    #expect(machine.cancel(33).resumedCancelled == 33)
    let expected = (1..<10).filter { $0 % 4 != 0 } + (30..<40).filter { $0 % 4 != 0 && $0 != 33 }
    #expect(machine.joinableRuns.map(\.waiters) == [expected + [40]])
    #expect(machine.taskCreated(0, for: 0).isNone)
    #expect(machine.finish(0) == expected + [40])
    #expect(machine.isIdle)
  }

  // MARK: - Generated event sequences

  @Test(arguments: [true, false])
  func `Generated Event Sequences Keep Every Rule`(stopsWaitingOnCancellation: Bool) async {
    // NB: Each number is one event: its remainder by 5 says which, and its quotient which caller
    // or run it applies to (see `Harness.apply`).
    await propertyCheck(count: 400, input: Gen.int(in: 0...39).array(of: 0...80)) { events in
      var harness = Harness(stopsWaitingOnCancellation: stopsWaitingOnCancellation)
      for event in events {
        harness.apply(event)
        harness.checkInvariants()
      }
      harness.drain()
      harness.checkOutcomes()
    }
  }
}

// MARK: - Reading actions

extension Machine.JoinAction {
  fileprivate var isWait: Bool {
    if case .wait = self { return true }
    return false
  }

  fileprivate var started: Int? {
    if case .startRun(let run) = self { return run }
    return nil
  }

  fileprivate var resumedCancelled: Int? {
    if case .resumeCancelled(let waiter) = self { return waiter }
    return nil
  }

  fileprivate var reconsideredFrom: Int? {
    if case .reconsider(let from) = self { return from }
    return nil
  }
}

extension Machine.TaskAction {
  fileprivate var isNone: Bool { self.cancelledTask == nil }

  fileprivate var cancelledTask: Int? {
    if case .cancel(let task) = self { return task }
    return nil
  }
}

extension Machine.CancelAction {
  fileprivate var isNone: Bool {
    if case .none = self { return true }
    return false
  }

  fileprivate var resumedCancelled: Int? {
    if case .resumeCancelled(let waiter) = self { return waiter }
    return nil
  }

  /// The caller resumed and the task cancelled, when the run lost its last caller.
  fileprivate var cancelledWaiterAndTask: [Int]? {
    if case .resumeCancelledAndCancelRun(let waiter, let task) = self { return [waiter, task] }
    return nil
  }
}

// MARK: - Harness

/// Plays the store's part around a machine and keeps a simple model of what should happen, which
/// it checks every action against.
private struct Harness {
  enum Outcome: Equatable {
    case cancelled
    case result(ofRun: Int)
  }

  enum Phase {
    /// Looked at the candidates; joins with this choice when the sequence says so.
    case looking(choice: Int?, horizon: Int)
    /// Joined or started this run.
    case waiting(run: Int)
    /// Was answered before joining.
    case answered
  }

  struct Caller {
    let key: Int
    var phase: Phase
    var isCancelled = false
    var wasCancelledBeforeOutcome = false
    var outcomes = [Outcome]()
  }

  struct Run {
    let key: Int
    var waiters: [Int]
    var isTaskAttached = false
    var isFinished = false
    var isAbandoned = false
    var isTaskAttachedBeforeFinishing = false
    var taskCancellations = 0

    var isJoinable: Bool { !self.isFinished && !self.isAbandoned }
  }

  let stopsWaitingOnCancellation: Bool
  var machine: Machine
  var callers = [Caller]()
  var runs = [Run]()

  init(stopsWaitingOnCancellation: Bool) {
    self.stopsWaitingOnCancellation = stopsWaitingOnCancellation
    self.machine = Machine(stopsWaitingOnCancellation: stopsWaitingOnCancellation)
  }

  var lookingCallers: [Int] {
    self.callers.indices.filter {
      if case .looking = self.callers[$0].phase { return true }
      return false
    }
  }

  mutating func apply(_ event: Int) {
    let argument = event / 5
    switch event % 5 {
    case 0:
      // NB: Three keys, so that callers are duplicates of some runs and not of others.
      self.callers.append(Caller(key: argument % 3, phase: .answered))
      self.look(self.callers.count - 1, from: 0)
    case 1:
      let looking = self.lookingCallers
      guard !looking.isEmpty else { return }
      self.join(looking[argument % looking.count])
    case 2:
      let unattached = self.runs.indices.filter { !self.runs[$0].isTaskAttached }
      guard !unattached.isEmpty else { return }
      self.createTask(unattached[argument % unattached.count])
    case 3:
      let running = self.runs.indices.filter { !self.runs[$0].isFinished }
      guard !running.isEmpty else { return }
      self.finish(running[argument % running.count])
    default:
      let uncancelled = self.callers.indices.filter { !self.callers[$0].isCancelled }
      guard !uncancelled.isEmpty else { return }
      self.cancel(uncancelled[argument % uncancelled.count])
    }
  }

  /// What the storage does before joining: the first candidate whose key is the caller's.
  mutating func look(_ caller: Int, from oldest: Int) {
    var horizon = oldest
    var choice: Int?
    while let candidate = self.machine.candidate(from: horizon) {
      #expect(candidate.id >= horizon)
      #expect(self.runs[candidate.id].isJoinable, "A finished or cancelled run is a candidate.")
      #expect(candidate.context == self.runs[candidate.id].key)
      horizon = candidate.id + 1
      if candidate.context == self.callers[caller].key {
        choice = candidate.id
        break
      }
    }
    self.callers[caller].phase = .looking(choice: choice, horizon: horizon)
  }

  mutating func join(_ caller: Int) {
    guard case .looking(let choice, let horizon) = self.callers[caller].phase else { return }
    let isCancelled = self.callers[caller].isCancelled
    let answersCancellation = isCancelled && self.stopsWaitingOnCancellation
    let action = self.machine.join(
      caller,
      caller,
      context: self.callers[caller].key,
      choosing: choice,
      consideredBefore: horizon,
      isCancelled: isCancelled
    )
    let chosenIsJoinable = choice.map { self.runs[$0].isJoinable } ?? false
    let newerIsJoinable = self.runs.indices.contains { $0 >= horizon && self.runs[$0].isJoinable }
    switch action {
    case .wait:
      #expect(!answersCancellation)
      #expect(chosenIsJoinable)
      guard let choice else { return }
      self.runs[choice].waiters.append(caller)
      self.callers[caller].phase = .waiting(run: choice)
    case .startRun(let run):
      #expect(!answersCancellation)
      #expect(!chosenIsJoinable && !newerIsJoinable)
      #expect(run == self.runs.count)
      #expect(
        !self.runs.contains { $0.isJoinable && $0.key == self.callers[caller].key },
        "A run started though a duplicate was joinable."
      )
      self.runs.append(Run(key: self.callers[caller].key, waiters: [caller]))
      self.callers[caller].phase = .waiting(run: run)
    case .resumeCancelled(let waiter):
      #expect(answersCancellation)
      #expect(waiter == caller)
      self.callers[caller].phase = .answered
      self.resume(waiter, with: .cancelled)
    case .reconsider(let from):
      #expect(!answersCancellation)
      #expect(!chosenIsJoinable && newerIsJoinable)
      #expect(from == horizon)
      self.look(caller, from: from)
    }
  }

  mutating func createTask(_ run: Int) {
    let action = self.machine.taskCreated(run, for: run)
    self.runs[run].isTaskAttached = true
    self.runs[run].isTaskAttachedBeforeFinishing = !self.runs[run].isFinished
    let cancelsTask = self.runs[run].isAbandoned && !self.runs[run].isFinished
    switch action {
    case .none:
      #expect(!cancelsTask)
    case .cancel(let task):
      #expect(cancelsTask)
      #expect(task == run)
      self.runs[run].taskCancellations += 1
    }
  }

  mutating func finish(_ run: Int) {
    let waiters = self.machine.finish(run)
    #expect(waiters == (self.runs[run].isAbandoned ? [] : self.runs[run].waiters))
    self.runs[run].isFinished = true
    self.runs[run].waiters = []
    for waiter in waiters {
      self.resume(waiter, with: .result(ofRun: run))
    }
  }

  mutating func cancel(_ caller: Int) {
    self.callers[caller].isCancelled = true
    if self.callers[caller].outcomes.isEmpty {
      self.callers[caller].wasCancelledBeforeOutcome = true
    }
    let action = self.machine.cancel(caller)
    var waitedFor: Int?
    if case .waiting(let run) = self.callers[caller].phase, self.callers[caller].outcomes.isEmpty {
      waitedFor = run
    }
    guard self.stopsWaitingOnCancellation, let run = waitedFor else {
      #expect(action.isNone)
      return
    }
    self.runs[run].waiters.removeAll { $0 == caller }
    let losesLastCaller = self.runs[run].waiters.isEmpty
    if losesLastCaller {
      self.runs[run].isAbandoned = true
    }
    switch action {
    case .none:
      Issue.record("A waiting caller was not answered when cancelled.")
    case .resumeCancelled(let waiter):
      #expect(waiter == caller)
      #expect(!losesLastCaller || !self.runs[run].isTaskAttached)
      self.resume(waiter, with: .cancelled)
    case .resumeCancelledAndCancelRun(let waiter, let task):
      #expect(waiter == caller)
      #expect(task == run)
      #expect(losesLastCaller && self.runs[run].isTaskAttached)
      self.runs[run].taskCancellations += 1
      self.resume(waiter, with: .cancelled)
    }
  }

  mutating func resume(_ caller: Int, with outcome: Outcome) {
    #expect(self.callers[caller].outcomes.isEmpty, "A caller was resumed twice.")
    self.callers[caller].outcomes.append(outcome)
  }

  func checkInvariants() {
    let joinable = self.runs.indices.filter { self.runs[$0].isJoinable }
    #expect(self.machine.joinableRuns.map(\.id) == joinable)
    #expect(self.machine.joinableRuns.map(\.waiters) == joinable.map { self.runs[$0].waiters })
    #expect(
      self.machine.joinableRuns.allSatisfy { !$0.waiters.isEmpty },
      "A run that no caller waits for is joinable."
    )
    let isIdle = self.runs.allSatisfy { $0.isFinished && $0.isTaskAttached }
    #expect(self.machine.isIdle == isIdle)
    let waiting = joinable.reduce(0) { $0 + self.runs[$1].waiters.count }
    #expect(self.machine.waiterCount == waiting)
    #expect(
      self.machine.waiterSlotCount <= 2 * waiting,
      "Callers that left take more room than the callers that wait."
    )
  }

  /// Lets every caller join and every run finish.
  mutating func drain() {
    while true {
      if let caller = self.lookingCallers.first {
        self.join(caller)
      } else if let run = self.runs.indices.first(where: { !self.runs[$0].isTaskAttached }) {
        self.createTask(run)
      } else if let run = self.runs.indices.first(where: { !self.runs[$0].isFinished }) {
        self.finish(run)
      } else {
        break
      }
      self.checkInvariants()
    }
  }

  func checkOutcomes() {
    #expect(self.machine.isIdle)
    for caller in self.callers {
      #expect(caller.outcomes.count == 1, "A caller was not resumed exactly once.")
      guard let outcome = caller.outcomes.first else { continue }
      switch outcome {
      case .cancelled:
        #expect(self.stopsWaitingOnCancellation && caller.wasCancelledBeforeOutcome)
      case .result(let run):
        #expect(!(self.stopsWaitingOnCancellation && caller.wasCancelledBeforeOutcome))
        guard case .waiting(let joined) = caller.phase else {
          Issue.record("A caller that joined no run got a result.")
          continue
        }
        #expect(joined == run, "A caller got the result of a run it did not join.")
      }
    }
    for run in self.runs {
      // NB: A run that lost its callers has its task cancelled, unless the run had finished by
      // the time its task existed; no other task is cancelled.
      let cancelsTask = run.isAbandoned && run.isTaskAttachedBeforeFinishing
      #expect(run.taskCancellations == (cancelsTask ? 1 : 0))
    }
  }
}
