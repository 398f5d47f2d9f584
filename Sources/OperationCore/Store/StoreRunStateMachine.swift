/// The bookkeeping of one store's runs: which runs are in flight, whose results may reach the
/// state, whether the value is invalidated or protected by mutations, who observes the store, and
/// when it is collected.
///
/// The machine is a value that changes only through its events, and it performs nothing: each
/// event returns what its owner, ``OperationStore``, does after releasing its lock (cancelling a
/// task, starting or stopping the collection timer, computing optimistic changes again, running
/// again). So its rules are tested synchronously, against a reference model, and no code outside
/// the library runs while the store holds its lock.
///
/// Its rules:
///
/// - Runs are numbered in the order they are created. A run's result reaches the state only if
///   no reset, no invalidation with a rerun and no end of a mutation's protection happened since
///   the run was created, and no mutation protects the store when the result arrives. A result
///   refused while a mutation protects the store is remembered, and the end of the protection
///   then invalidates the store (and reruns it when it has subscribers).
/// - A reset empties the runs in flight: those runs still end, but they no longer count, and the
///   state is not told that they finished.
/// - The store is invalidated from its first invalidation until a run created since then
///   succeeds, a value is set, or the store is reset.
/// - The store is unobserved when it has no subscriber and no run in flight. When it becomes
///   unobserved and can be collected, a collection timer starts; a first subscriber stops it;
///   a timer that fires while the store is unobserved collects it, and a stale timer (one that
///   was stopped or replaced) does nothing. A collected store that gains a subscriber asks its
///   client to take it back.
/// - The effects that a modifier starts once per run end once the run's last attempt is over,
///   the last started first.
///
/// It is generic over what it keeps, so that its tests use plain values: the store keeps handles
/// of operation tasks, Swift tasks as timers, and closures that end run effects. None of them
/// depends on the store's state type, so that the store's code uses the machine specialized,
/// with no generic metadata to look up at run time. The optimistic values themselves are the
/// store's (`MutationProtection`); the machine counts the protections.
@usableFromInline
package struct StoreRunStateMachine<RunTask: Sendable, Timer: Sendable, EffectEnd: Sendable>:
  Sendable
{
  /// A run created and not yet returned.
  @usableFromInline
  struct Run: Sendable {
    /// The run's task, once the owner attached it.
    @usableFromInline var task: RunTask?
    /// Whether the run counts among the runs in flight: not once a reset emptied them.
    @usableFromInline var isCounted = true

    @inlinable
    init() {}
  }

  /// The runs in flight by number. One run sits in a slot of its own, the others in a
  /// dictionary: a store seldom has more than one run in flight, and the slot spares each of its
  /// runs three hashes and a dictionary's insertion and removal.
  @usableFromInline
  struct RunTable: Sendable {
    @usableFromInline var first: (number: Int, run: Run)?
    @usableFromInline var others = [Int: Run]()

    @inlinable
    init() {}

    /// Adds run `number`, which is not in the table.
    @inlinable
    mutating func insert(_ run: Run, for number: Int) {
      if self.first == nil {
        self.first = (number, run)
      } else {
        self.others[number] = run
      }
    }

    /// Whether run `number` is in the table.
    @inlinable
    func contains(_ number: Int) -> Bool {
      if let first = self.first, first.number == number { return true }
      return !self.others.isEmpty && self.others[number] != nil
    }

    /// Changes run `number`, if it is in the table.
    @inlinable
    mutating func update(_ number: Int, _ body: (inout Run) -> Void) {
      if self.first?.number == number {
        body(&self.first!.run)
      } else if !self.others.isEmpty, self.others[number] != nil {
        body(&self.others[number]!)
      }
    }

    /// Removes run `number` and returns it; `nil` when it is not in the table.
    @inlinable
    mutating func remove(_ number: Int) -> Run? {
      if let first = self.first, first.number == number {
        self.first = nil
        return first.run
      }
      return self.others.isEmpty ? nil : self.others.removeValue(forKey: number)
    }

    /// Calls `body` with each run, in no particular order.
    func forEach(_ body: (Run) -> Void) {
      if let first = self.first { body(first.run) }
      for run in self.others.values { body(run) }
    }

    /// Changes every run.
    mutating func updateEach(_ body: (inout Run) -> Void) {
      if self.first != nil { body(&self.first!.run) }
      for number in self.others.keys { body(&self.others[number]!) }
    }
  }

  /// The effects of one run, in the order they started.
  @usableFromInline
  struct Effects: Sendable {
    @usableFromInline var identities = [Int]()
    @usableFromInline var ends = [EffectEnd]()
  }

  /// The number of the next run.
  @usableFromInline package internal(set) var nextRunNumber = 0

  /// Runs numbered below this began before the last reset: the state is not told that they
  /// finished.
  @usableFromInline var resetFloor = 0

  /// Runs numbered below this are superseded (by a reset, an invalidation's rerun, or the end of
  /// a mutation's protection): their results do not reach the state.
  @usableFromInline var resultFloor = 0

  /// The runs created and not yet returned, by number.
  @usableFromInline var runs = RunTable()

  /// The number of runs in ``runs`` that count.
  @usableFromInline package internal(set) var runsInFlightCount = 0

  /// The number of the first run whose success ends an invalidation; `nil` when the store is not
  /// invalidated.
  @usableFromInline var invalidatedFrom: Int?

  /// The number of mutations protecting the store.
  @usableFromInline package internal(set) var protectionCount = 0

  /// Whether a run's result was refused during the current protection.
  @usableFromInline var refusedResults = false

  /// The number of subscribers.
  @usableFromInline package internal(set) var subscriberCount = 0

  /// The run that the first subscriber started, until the last subscriber leaves.
  @usableFromInline var automaticRun: RunTask?

  /// The timer that collects the store, once started.
  @usableFromInline var collectionTimer: Timer?

  /// Whether a collection timer is running (started, whether or not attached yet).
  @usableFromInline var isTimingCollection = false

  /// Bumped whenever the timer is started or stopped, so that a timer that lost the race to its
  /// replacement does nothing.
  @usableFromInline package internal(set) var collectionGeneration = 0

  /// Whether the store left its client's cache through collection.
  @usableFromInline package internal(set) var isCollected = false

  /// The effects of the runs that started some, by run number.
  @usableFromInline var effects = [Int: Effects]()

  /// Creates a machine with no run, no subscriber and nothing invalidated.
  package init() {}
}

// MARK: - Runs

extension StoreRunStateMachine {
  /// Whether the store was invalidated and no run created since has succeeded.
  package var isInvalidated: Bool {
    self.invalidatedFrom != nil
  }

  /// Whether the store has no subscriber and no run in flight.
  @inlinable
  package var isUnobserved: Bool {
    self.subscriberCount == 0 && self.runsInFlightCount == 0
  }

  /// A run is created: numbers it and counts it in flight.
  ///
  /// - Returns: Where the run stands among the store's runs; attach its task with
  ///   ``attach(_:toRun:)``.
  @inlinable
  package mutating func createRun() -> StoreRunOrder {
    let number = self.nextRunNumber
    self.nextRunNumber &+= 1
    self.runs.insert(Run(), for: number)
    self.runsInFlightCount += 1
    return StoreRunOrder(sequence: number, floor: self.resultFloor)
  }

  /// The task of run `number` exists: ``runsToCancel`` cancels it.
  @inlinable
  package mutating func attach(_ task: RunTask, toRun number: Int) {
    self.runs.update(number) { $0.task = task }
  }

  /// Whether run `number` has returned; a yield then comes too late.
  @inlinable
  package func hasReturned(_ number: Int) -> Bool {
    !self.runs.contains(number)
  }

  /// A run yields a result: whether it reaches the state.
  ///
  /// A result refused because a mutation protects the store is remembered, so that the end of
  /// the protection invalidates the store.
  @inlinable
  package mutating func yielded(byRun number: Int) -> Bool {
    self.accepts(number)
  }

  /// What the owner does once a run returned.
  @usableFromInline
  package struct ReturnAction: Sendable {
    /// Whether the final result reaches the state.
    @usableFromInline package var recordsResult = false
    /// Whether the state is told that the run finished: not for runs that began before a reset.
    @usableFromInline package var finishesRun = false
    /// The generation of a collection timer to start, when the store became unobserved.
    @usableFromInline package var startsCollectionTimer: Int?

    @inlinable
    init() {}
  }

  /// Run `number` returned with a success or a failure.
  ///
  /// - Parameters:
  ///   - number: The run's number.
  ///   - succeeded: Whether its final result is a success.
  ///   - canCollect: Whether the store can be collected: it has a client and a collection delay.
  @inlinable
  package mutating func returned(
    run number: Int,
    succeeded: Bool,
    canCollect: Bool
  ) -> ReturnAction {
    var action = ReturnAction()
    if let run = self.runs.remove(number), run.isCounted {
      self.runsInFlightCount -= 1
    }
    if number >= self.resetFloor {
      action.finishesRun = true
      action.recordsResult = self.accepts(number)
      if action.recordsResult, succeeded, let from = self.invalidatedFrom, number >= from {
        self.invalidatedFrom = nil
      }
    }
    action.startsCollectionTimer = self.startCollectionTimerIfUnobserved(canCollect: canCollect)
    return action
  }

  @inlinable
  mutating func accepts(_ number: Int) -> Bool {
    guard number >= self.resultFloor else { return false }
    guard self.protectionCount == 0 else {
      self.refusedResults = true
      return false
    }
    return true
  }

  /// The tasks of the runs in flight, to cancel.
  package var runsToCancel: [RunTask] {
    var tasks = [RunTask]()
    self.runs.forEach { run in
      if run.isCounted, let task = run.task { tasks.append(task) }
    }
    return tasks
  }

  /// The store is reset: every run in flight is superseded and stops counting, and the
  /// invalidation is dropped.
  package mutating func reset() {
    self.resetFloor = self.nextRunNumber
    self.resultFloor = self.nextRunNumber
    self.invalidatedFrom = nil
    self.runs.updateEach { $0.isCounted = false }
    self.runsInFlightCount = 0
  }

  /// The store is invalidated; with `supersedingRuns`, results of the runs in flight no longer
  /// reach the state (the rerun that follows supersedes them).
  package mutating func invalidate(supersedingRuns: Bool) {
    self.invalidatedFrom = self.invalidatedFrom ?? self.nextRunNumber
    if supersedingRuns {
      self.resultFloor = self.nextRunNumber
    }
  }

  /// A value is set on the store directly (a failure set on it changes nothing here); it ends
  /// an invalidation.
  package mutating func valueSet() {
    self.invalidatedFrom = nil
  }
}

// MARK: - Protection

extension StoreRunStateMachine {
  /// A mutation protects the store: until the last protection ends, no result reaches the state.
  package mutating func beginProtection() {
    self.protectionCount += 1
  }

  /// A mutation's protection ended.
  ///
  /// - Returns: Whether the store runs again (when automatic running is enabled), because a
  ///   result was refused during the protection and the store has subscribers.
  package mutating func endProtection() -> Bool {
    self.protectionCount -= 1
    guard self.protectionCount == 0 else { return false }
    self.resultFloor = self.nextRunNumber
    guard self.refusedResults else { return false }
    self.refusedResults = false
    self.invalidate(supersedingRuns: false)
    return self.subscriberCount > 0
  }
}

// MARK: - Observation

extension StoreRunStateMachine {
  /// What the owner does once a subscriber arrived.
  package struct SubscribeAction: Sendable {
    /// Whether it is the first subscriber.
    package var isFirst = false
    /// The collection timer to cancel.
    package var cancelsTimer: Timer?
    /// Whether the store was collected and asks its client to take it back.
    package var readmits = false
  }

  /// A subscriber arrived.
  package mutating func subscribed() -> SubscribeAction {
    self.subscriberCount += 1
    var action = SubscribeAction()
    guard self.subscriberCount == 1 else { return action }
    action.isFirst = true
    action.cancelsTimer = self.stopCollectionTimer()
    if self.isCollected {
      self.isCollected = false
      action.readmits = true
    }
    return action
  }

  /// Whether the store may start an automatic run: it has a subscriber and none started yet.
  package var mayStartAutomaticRun: Bool {
    self.automaticRun == nil && self.subscriberCount > 0
  }

  /// The first subscriber started a run; the last one to leave cancels it.
  package mutating func automaticRunStarted(_ task: RunTask) {
    self.automaticRun = task
  }

  /// What the owner does once a subscriber left.
  package struct UnsubscribeAction: Sendable {
    /// The automatic run to cancel, when the last subscriber left.
    package var cancelsRun: RunTask?
    /// The generation of a collection timer to start, when the store became unobserved.
    package var startsCollectionTimer: Int?
  }

  /// A subscriber left.
  package mutating func unsubscribed(canCollect: Bool) -> UnsubscribeAction {
    self.subscriberCount -= 1
    var action = UnsubscribeAction()
    guard self.subscriberCount == 0 else { return action }
    action.cancelsRun = self.automaticRun
    self.automaticRun = nil
    action.startsCollectionTimer = self.startCollectionTimerIfUnobserved(canCollect: canCollect)
    return action
  }
}

// MARK: - Collection

extension StoreRunStateMachine {
  /// Starts the collection timer when the store is unobserved, can be collected, and is neither
  /// timed nor collected already.
  ///
  /// - Returns: The generation of the timer to start, which the owner attaches with
  ///   ``collectionTimerStarted(_:generation:)``.
  @inlinable
  package mutating func startCollectionTimerIfUnobserved(canCollect: Bool) -> Int? {
    guard canCollect, self.isUnobserved, !self.isTimingCollection, !self.isCollected else {
      return nil
    }
    self.isTimingCollection = true
    self.collectionGeneration &+= 1
    return self.collectionGeneration
  }

  /// The timer of `generation` exists; it is cancelled when a subscriber arrives.
  package mutating func collectionTimerStarted(_ timer: Timer, generation: Int) {
    guard self.isTimingCollection, self.collectionGeneration == generation else { return }
    self.collectionTimer = timer
  }

  private mutating func stopCollectionTimer() -> Timer? {
    guard self.isTimingCollection else { return nil }
    self.isTimingCollection = false
    self.collectionGeneration &+= 1
    defer { self.collectionTimer = nil }
    return self.collectionTimer
  }

  /// The collection timer of `generation` fired.
  ///
  /// - Returns: Whether the owner collects the store now (and then calls ``collected()``): not
  ///   when the timer is stale or the store is observed again.
  package mutating func collectionTimerFired(generation: Int) -> Bool {
    guard self.isTimingCollection, self.collectionGeneration == generation else { return false }
    self.isTimingCollection = false
    self.collectionTimer = nil
    return self.isUnobserved
  }

  /// The store left its client's cache.
  package mutating func collected() {
    self.isCollected = true
  }

  /// A cache that bounds its stores evicts this store, if it is unobserved: the store counts as
  /// collected (a subscriber brings it back), and its collection timer stops.
  ///
  /// - Parameter removeFromCache: Removes the store from its cache, and says whether it did (it
  ///   may have left already); called only when the store is unobserved.
  /// - Returns: Whether the store was evicted, and the collection timer to cancel.
  package mutating func evict(
    removingFromCache removeFromCache: () -> Bool
  ) -> (isEvicted: Bool, cancelsTimer: Timer?) {
    guard self.isUnobserved, !self.isCollected, removeFromCache() else { return (false, nil) }
    self.isCollected = true
    return (true, self.stopCollectionTimer())
  }
}

// MARK: - Run effects

extension StoreRunStateMachine {
  /// A modifier `identity` starts its effects for run `number`.
  ///
  /// - Returns: Whether they start now: not when an earlier attempt of the run started them.
  package mutating func startEffects(ofModifier identity: Int, forRun number: Int) -> Bool {
    if self.effects[number]?.identities.contains(identity) == true {
      return false
    }
    self.effects[number, default: Effects()].identities.append(identity)
    return true
  }

  /// The effects that a modifier started for run `number` end with `end`.
  package mutating func addEffectEnd(_ end: EffectEnd, forRun number: Int) {
    self.effects[number, default: Effects()].ends.append(end)
  }

  /// Whether any run has effects to end.
  @inlinable
  package var hasEffects: Bool {
    !self.effects.isEmpty
  }

  /// The ends of run `number`'s effects, the last started first, which the owner runs before it
  /// records the run's result.
  @inlinable
  package mutating func takeEffectEnds(ofRun number: Int) -> [EffectEnd] {
    guard let effects = self.effects.removeValue(forKey: number) else { return [] }
    return effects.ends.reversed()
  }
}
