import OperationCore
import PropertyBased
import Testing

/// The machine as these tests drive it: a run's task is its number, a timer is its generation, and
/// an effect's end is the identity of the modifier that started it.
private typealias Machine = StoreRunStateMachine<Int, Int, Int>

@Suite struct `StoreRunStateMachine tests` {
  // MARK: - Runs

  @Test func `Runs Are Numbered In The Order They Are Created And Count Until They Return`() {
    var machine = Machine()
    let first = machine.createRun()
    let second = machine.createRun()
    #expect([first.sequence, second.sequence] == [0, 1])
    #expect(machine.runsInFlightCount == 2)
    _ = machine.returned(run: 0, succeeded: true, canCollect: false)
    #expect(machine.runsInFlightCount == 1)
    #expect(machine.hasReturned(0))
    #expect(!machine.hasReturned(1))
  }

  @Test func `A Run's Results Reach The State When Nothing Superseded It`() {
    var machine = Machine()
    let run = machine.createRun().sequence
    #expect(machine.yielded(byRun: run) == true)
    let action = machine.returned(run: run, succeeded: true, canCollect: false)
    #expect(action.recordsResult)
    #expect(action.finishesRun)
  }

  @Test func `A Reset Supersedes The Runs In Flight And Stops Counting Them`() {
    var machine = Machine()
    let run = machine.createRun().sequence
    machine.attach(run, toRun: run)
    machine.reset()
    #expect(machine.runsInFlightCount == 0)
    #expect(machine.runsToCancel.isEmpty)
    #expect(machine.yielded(byRun: run) == false)
    #expect(!machine.hasReturned(run))
    let action = machine.returned(run: run, succeeded: true, canCollect: false)
    #expect(!action.recordsResult)
    #expect(!action.finishesRun)
    #expect(machine.runsInFlightCount == 0)
  }

  @Test func `Runs Created After A Reset Reach The State`() {
    var machine = Machine()
    _ = machine.createRun()
    machine.reset()
    let run = machine.createRun().sequence
    let action = machine.returned(run: run, succeeded: true, canCollect: false)
    #expect(action.recordsResult)
    #expect(action.finishesRun)
  }

  @Test func `The Runs To Cancel Are The Counted Runs With Tasks`() {
    var machine = Machine()
    let first = machine.createRun().sequence
    machine.attach(10, toRun: first)
    _ = machine.createRun()
    machine.reset()
    let counted = machine.createRun().sequence
    machine.attach(12, toRun: counted)
    _ = machine.createRun()
    #expect(machine.runsToCancel == [12])
  }

  // MARK: - Invalidation

  @Test func `An Invalidation Ends When A Run Created Since Succeeds`() {
    var machine = Machine()
    let before = machine.createRun().sequence
    machine.invalidate(supersedingRuns: false)
    #expect(machine.isInvalidated)
    let after = machine.createRun().sequence
    #expect(machine.returned(run: before, succeeded: true, canCollect: false).recordsResult)
    #expect(machine.isInvalidated)
    #expect(machine.returned(run: after, succeeded: false, canCollect: false).recordsResult)
    #expect(machine.isInvalidated)
    let rerun = machine.createRun().sequence
    _ = machine.returned(run: rerun, succeeded: true, canCollect: false)
    #expect(!machine.isInvalidated)
  }

  @Test func `An Invalidation With A Rerun Supersedes The Runs In Flight`() {
    var machine = Machine()
    let before = machine.createRun().sequence
    machine.invalidate(supersedingRuns: true)
    let rerun = machine.createRun()
    #expect(rerun.floor == rerun.sequence)
    #expect(machine.yielded(byRun: before) == false)
    #expect(!machine.returned(run: before, succeeded: true, canCollect: false).recordsResult)
    #expect(machine.returned(run: rerun.sequence, succeeded: true, canCollect: false).recordsResult)
    #expect(!machine.isInvalidated)
  }

  @Test func `A Value Set Ends An Invalidation, And A Reset Drops It`() {
    var machine = Machine()
    machine.invalidate(supersedingRuns: false)
    machine.valueSet()
    #expect(!machine.isInvalidated)
    machine.invalidate(supersedingRuns: false)
    machine.reset()
    #expect(!machine.isInvalidated)
  }

  // MARK: - Protection

  @Test func `Results Are Refused While A Mutation Protects The Store`() {
    var machine = Machine()
    let run = machine.createRun().sequence
    machine.beginProtection()
    #expect(machine.yielded(byRun: run) == false)
    #expect(!machine.returned(run: run, succeeded: true, canCollect: false).recordsResult)
    _ = machine.subscribed()
    #expect(machine.endProtection() == true)
    #expect(machine.isInvalidated)
  }

  @Test func `A Refused Result Invalidates Without A Rerun When Nobody Subscribes`() {
    var machine = Machine()
    let run = machine.createRun().sequence
    machine.beginProtection()
    _ = machine.returned(run: run, succeeded: true, canCollect: false)
    #expect(machine.endProtection() == false)
    #expect(machine.isInvalidated)
  }

  @Test func `The End Of The Last Protection Supersedes The Runs Created Before It`() {
    var machine = Machine()
    machine.beginProtection()
    machine.beginProtection()
    let during = machine.createRun().sequence
    #expect(machine.endProtection() == false)
    #expect(machine.protectionCount == 1)
    #expect(machine.endProtection() == false)
    #expect(!machine.isInvalidated)
    #expect(!machine.returned(run: during, succeeded: true, canCollect: false).recordsResult)
    let after = machine.createRun().sequence
    #expect(machine.returned(run: after, succeeded: true, canCollect: false).recordsResult)
  }

  @Test func `A Superseded Run's Result Does Not Count As Refused By A Protection`() {
    var machine = Machine()
    let run = machine.createRun().sequence
    machine.invalidate(supersedingRuns: true)
    _ = machine.returned(run: machine.createRun().sequence, succeeded: true, canCollect: false)
    machine.beginProtection()
    _ = machine.returned(run: run, succeeded: true, canCollect: false)
    _ = machine.subscribed()
    #expect(machine.endProtection() == false)
    #expect(!machine.isInvalidated)
  }

  // MARK: - Observation

  @Test func `The Last Subscriber To Leave Cancels The Automatic Run`() {
    var machine = Machine()
    #expect(!machine.mayStartAutomaticRun)
    #expect(machine.subscribed().isFirst)
    #expect(!machine.subscribed().isFirst)
    #expect(machine.mayStartAutomaticRun)
    machine.automaticRunStarted(7)
    #expect(!machine.mayStartAutomaticRun)
    #expect(machine.unsubscribed(canCollect: false).cancelsRun == nil)
    #expect(machine.unsubscribed(canCollect: false).cancelsRun == 7)
    _ = machine.subscribed()
    #expect(machine.mayStartAutomaticRun)
  }

  // MARK: - Collection

  @Test func `An Unobserved Store That Can Be Collected Starts One Timer`() {
    var machine = Machine()
    _ = machine.subscribed()
    let run = machine.createRun().sequence
    #expect(machine.unsubscribed(canCollect: true).startsCollectionTimer == nil)
    let generation = machine.returned(run: run, succeeded: true, canCollect: true)
      .startsCollectionTimer
    #expect(generation != nil)
    #expect(machine.startCollectionTimerIfUnobserved(canCollect: true) == nil)
    machine.collectionTimerStarted(generation ?? 0, generation: generation ?? 0)
    #expect(machine.collectionTimerFired(generation: generation ?? 0) == true)
    machine.collected()
    #expect(machine.isCollected)
    #expect(machine.startCollectionTimerIfUnobserved(canCollect: true) == nil)
  }

  @Test func `A Store That Cannot Be Collected Starts No Timer`() {
    var machine = Machine()
    _ = machine.subscribed()
    #expect(machine.unsubscribed(canCollect: false).startsCollectionTimer == nil)
  }

  @Test func `A First Subscriber Stops The Timer, Which Then Does Nothing When It Fires`() {
    var machine = Machine()
    let generation = machine.startCollectionTimerIfUnobserved(canCollect: true) ?? -1
    machine.collectionTimerStarted(100, generation: generation)
    let action = machine.subscribed()
    #expect(action.cancelsTimer == 100)
    #expect(!action.readmits)
    #expect(machine.collectionTimerFired(generation: generation) == false)
  }

  @Test func `A Timer That Fires While A Run Is In Flight Does Not Collect`() {
    var machine = Machine()
    let generation = machine.startCollectionTimerIfUnobserved(canCollect: true) ?? -1
    let run = machine.createRun().sequence
    #expect(machine.collectionTimerFired(generation: generation) == false)
    let next = machine.returned(run: run, succeeded: true, canCollect: true).startsCollectionTimer
    #expect(next != nil && next != generation)
  }

  @Test func `A Collected Store That Gains A Subscriber Asks To Be Taken Back`() {
    var machine = Machine()
    let generation = machine.startCollectionTimerIfUnobserved(canCollect: true) ?? -1
    #expect(machine.collectionTimerFired(generation: generation) == true)
    machine.collected()
    let action = machine.subscribed()
    #expect(action.readmits)
    #expect(action.cancelsTimer == nil)
    #expect(!machine.isCollected)
  }

  @Test func `Eviction Takes Only An Unobserved Store, Stops Its Timer And Marks It Collected`() {
    var machine = Machine()
    _ = machine.subscribed()
    var isAsked = false
    let whileSubscribed = machine.evict {
      isAsked = true
      return true
    }
    #expect(!whileSubscribed.isEvicted)
    #expect(!isAsked)
    let generation = machine.unsubscribed(canCollect: true).startsCollectionTimer ?? -1
    machine.collectionTimerStarted(100, generation: generation)
    let run = machine.createRun().sequence
    let whileRunning = machine.evict { true }
    #expect(!whileRunning.isEvicted)
    _ = machine.returned(run: run, succeeded: true, canCollect: true)
    let eviction = machine.evict { true }
    #expect(eviction.isEvicted)
    #expect(eviction.cancelsTimer == 100)
    #expect(machine.isCollected)
    #expect(machine.collectionTimerFired(generation: generation) == false)
    let action = machine.subscribed()
    #expect(action.readmits)
  }

  @Test func `A Store The Cache No Longer Holds Is Not Evicted`() {
    var machine = Machine()
    let eviction = machine.evict { false }
    #expect(!eviction.isEvicted)
    #expect(!machine.isCollected)
  }

  // MARK: - Run effects

  @Test func `A Modifier Starts Its Effects Once Per Run, And They End Last Started First`() {
    var machine = Machine()
    #expect(!machine.hasEffects)
    #expect(machine.startEffects(ofModifier: 1, forRun: 0) == true)
    machine.addEffectEnd(1, forRun: 0)
    #expect(machine.startEffects(ofModifier: 1, forRun: 0) == false)
    #expect(machine.startEffects(ofModifier: 2, forRun: 0) == true)
    machine.addEffectEnd(2, forRun: 0)
    #expect(machine.startEffects(ofModifier: 1, forRun: 1) == true)
    #expect(machine.hasEffects)
    #expect(machine.takeEffectEnds(ofRun: 0) == [2, 1])
    #expect(machine.takeEffectEnds(ofRun: 0).isEmpty)
    #expect(machine.takeEffectEnds(ofRun: 1).isEmpty)
    #expect(!machine.hasEffects)
  }

  // MARK: - Generated event sequences

  @Test func `Generated Event Sequences Agree With The Reference Model After Every Step`() async {
    // NB: Each number is one event: its remainder by 15 says which, and its quotient which run
    // or protection it applies to (see `Harness.apply`).
    await propertyCheck(count: 500, input: Gen.int(in: 0...299).array(of: 0...120)) { events in
      var harness = Harness()
      for event in events {
        harness.apply(event)
        harness.check()
      }
    }
  }
}

// MARK: - Harness

/// Plays the store's part around a machine and keeps a reference model of the rules, stated by
/// when things happened rather than by run numbers and floors, which it checks the machine
/// against after every event.
private struct Harness {
  struct Run {
    let number: Int
    let createdAt: Int
    var hasReturned = false
  }

  var machine = Machine()
  var now = 0
  var runs = [Run]()
  var lastResetAt = -1
  var lastSupersedingAt = -1
  var protections = [Int]()
  var refusedDuringProtection = false
  var invalidatedAt: Int?
  var subscribers = 0
  var automaticRun: Int?
  var timer: Int?
  var isCollected = false

  var runsInFlight: Int {
    self.runs.count { !$0.hasReturned && $0.createdAt > self.lastResetAt }
  }

  var isUnobserved: Bool {
    self.subscribers == 0 && self.runsInFlight == 0
  }

  /// Whether a result of `run` reaches the state now, by the rules; a result refused only for a
  /// protection is remembered.
  mutating func accepts(_ run: Run) -> Bool {
    guard run.createdAt > self.lastResetAt, run.createdAt > self.lastSupersedingAt else {
      return false
    }
    guard self.protections.isEmpty else {
      self.refusedDuringProtection = true
      return false
    }
    return true
  }

  mutating func apply(_ event: Int) {
    self.now += 1
    let target = event / 15
    let canCollect = target % 2 == 0
    switch event % 15 {
    case 0:
      self.createRun()
    case 1:
      guard !self.runs.isEmpty else { return }
      let index = target % self.runs.count
      let run = self.runs[index]
      #expect(self.machine.hasReturned(run.number) == run.hasReturned)
      guard !run.hasReturned else { return }
      let expected = self.accepts(run)
      #expect(self.machine.yielded(byRun: run.number) == expected)
    case 2, 3:
      let live = self.runs.indices.filter { !self.runs[$0].hasReturned }
      guard !live.isEmpty else { return }
      let index = live[target % live.count]
      let run = self.runs[index]
      let succeeded = event % 15 == 2
      let finishes = run.createdAt > self.lastResetAt
      let records = finishes && self.accepts(run)
      self.runs[index].hasReturned = true
      let action = self.machine.returned(
        run: run.number,
        succeeded: succeeded,
        canCollect: canCollect
      )
      #expect(action.finishesRun == finishes)
      #expect(action.recordsResult == records)
      if records, succeeded, let invalidatedAt = self.invalidatedAt, run.createdAt > invalidatedAt {
        self.invalidatedAt = nil
      }
      self.checkTimerStart(action.startsCollectionTimer, canCollect: canCollect)
    case 4:
      self.machine.reset()
      self.lastResetAt = self.now
      self.invalidatedAt = nil
    case 5:
      self.machine.invalidate(supersedingRuns: false)
      self.invalidatedAt = self.invalidatedAt ?? self.now
    case 6:
      self.invalidateAndRerun()
    case 7:
      self.machine.beginProtection()
      self.protections.append(self.now)
    case 8:
      guard !self.protections.isEmpty else { return }
      self.protections.remove(at: target % self.protections.count)
      let action = self.machine.endProtection()
      var reruns = false
      if self.protections.isEmpty {
        self.lastSupersedingAt = self.now
        if self.refusedDuringProtection {
          self.refusedDuringProtection = false
          self.invalidatedAt = self.invalidatedAt ?? self.now
          reruns = self.subscribers > 0
        }
      }
      #expect(action == reruns)
      if reruns {
        self.now += 1
        self.invalidateAndRerun()
      }
    case 9:
      self.subscribers += 1
      let action = self.machine.subscribed()
      #expect(action.isFirst == (self.subscribers == 1))
      if action.isFirst {
        #expect(action.cancelsTimer == self.timer)
        #expect(action.readmits == self.isCollected)
        self.timer = nil
        self.isCollected = false
        #expect(self.machine.mayStartAutomaticRun == (self.automaticRun == nil))
        if self.automaticRun == nil, target % 2 == 0 {
          let run = self.createRun()
          self.machine.automaticRunStarted(run)
          self.automaticRun = run
        }
      }
    case 10:
      guard self.subscribers > 0 else { return }
      self.subscribers -= 1
      let action = self.machine.unsubscribed(canCollect: canCollect)
      if self.subscribers == 0 {
        #expect(action.cancelsRun == self.automaticRun)
        self.automaticRun = nil
        self.checkTimerStart(action.startsCollectionTimer, canCollect: canCollect)
      } else {
        #expect(action.cancelsRun == nil)
        #expect(action.startsCollectionTimer == nil)
      }
    case 11:
      guard let timer = self.timer else { return }
      let collects = self.machine.collectionTimerFired(generation: timer)
      #expect(collects == self.isUnobserved)
      self.timer = nil
      // NB: The client may refuse to remove the store (another store took its path).
      if collects && target % 3 != 0 {
        self.machine.collected()
        self.isCollected = true
      }
    case 12:
      let stale = self.machine.collectionGeneration - 1 - target % 3
      #expect(self.machine.collectionTimerFired(generation: stale) == false)
    case 13:
      // NB: The cache may have lost the store already (another store took its path).
      let removes = target % 3 != 0
      var isAsked = false
      let eviction = self.machine.evict {
        isAsked = true
        return removes
      }
      let isEligible = self.isUnobserved && !self.isCollected
      #expect(isAsked == isEligible)
      #expect(eviction.isEvicted == (isEligible && removes))
      if eviction.isEvicted {
        #expect(eviction.cancelsTimer == self.timer)
        self.timer = nil
        self.isCollected = true
      } else {
        #expect(eviction.cancelsTimer == nil)
      }
    default:
      self.machine.valueSet()
      self.invalidatedAt = nil
    }
  }

  @discardableResult
  mutating func createRun() -> Int {
    let order = self.machine.createRun()
    #expect(order.sequence == self.runs.count)
    self.runs.append(Run(number: order.sequence, createdAt: self.now))
    self.machine.attach(order.sequence, toRun: order.sequence)
    return order.sequence
  }

  mutating func invalidateAndRerun() {
    self.machine.invalidate(supersedingRuns: true)
    self.invalidatedAt = self.invalidatedAt ?? self.now
    self.lastSupersedingAt = self.now
    self.now += 1
    self.createRun()
  }

  /// Checks that a timer starts exactly when the store became unobserved and can be collected,
  /// and attaches it.
  mutating func checkTimerStart(_ generation: Int?, canCollect: Bool) {
    let starts = canCollect && self.isUnobserved && self.timer == nil && !self.isCollected
    #expect((generation != nil) == starts)
    if let generation {
      self.machine.collectionTimerStarted(generation, generation: generation)
      self.timer = generation
    }
  }

  func check() {
    #expect(self.machine.runsInFlightCount == self.runsInFlight)
    #expect(self.machine.isInvalidated == (self.invalidatedAt != nil))
    #expect(self.machine.subscriberCount == self.subscribers)
    #expect(self.machine.isCollected == self.isCollected)
    #expect(self.machine.isUnobserved == self.isUnobserved)
    #expect(self.machine.protectionCount == self.protections.count)
    let cancellable = self.runs.filter { !$0.hasReturned && $0.createdAt > self.lastResetAt }
      .map(\.number)
    #expect(self.machine.runsToCancel.sorted() == cancellable)
  }
}
