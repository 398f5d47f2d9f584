/// The coordination of the runs of one deduplicated operation in one store: which runs are in
/// flight, which callers wait for each of them, and what to do when something happens.
///
/// The machine is a value that changes only through its events, and it performs nothing: each
/// event returns the action that its owner performs after releasing its lock (starting a run,
/// resuming callers, cancelling a task). So the rules are tested synchronously, without
/// concurrency, and no code outside the library runs while the owner holds its lock.
///
/// Its rules:
///
/// - A caller joins the run that it chose, when that run is still in flight and has not lost its
///   callers; otherwise it considers the runs that started since it looked, or starts a run of
///   its own when there are none.
/// - A caller that was cancelled before it joins is answered with `CancellationError`.
/// - A caller that is cancelled while it waits stops waiting and is answered with
///   `CancellationError`. A run that loses its last caller this way is cancelled and leaves the
///   runs that callers can join, so that a later caller starts a run of its own instead of
///   joining one that ends in `CancellationError`.
/// - When the failure type cannot hold `CancellationError`, cancelled callers keep waiting.
/// - A run's result reaches every caller that joined it, exactly once, and no other caller.
///
/// It is generic over what it keeps, so that its tests use plain values: the store keeps
/// contexts, continuations and Swift tasks. They are `Sendable`, so that its actions leave the
/// owner's lock.
package struct DeduplicationStateMachine<
  Context: Sendable,
  Continuation: Sendable,
  RunTask: Sendable
>: Sendable {
  /// Identifies a caller; unique among the callers of one machine.
  package typealias WaiterID = Int

  /// Identifies a run; runs get increasing ids in the order in which they start.
  package typealias RunID = Int

  /// A run in flight that callers can join.
  private struct Run: Sendable {
    let id: RunID
    let context: Context
    /// The run's task, once its owner has created it.
    var task: RunTask?
    /// The callers waiting for the run, in the order in which they joined, with a hole where a
    /// caller stopped waiting; ``waiterCount`` of them are callers, never none.
    ///
    /// A caller that stops waiting leaves a hole instead of being removed, so that its leaving
    /// costs O(1) however many callers wait: removing it from the middle of an array moved every
    /// caller after it, which made cancelling N callers cost O(N²). The holes are squeezed out
    /// once they outnumber the callers, which keeps the cost O(1) amortized and the memory
    /// proportional to the callers.
    var slots: ContiguousArray<(id: WaiterID, continuation: Continuation)?>
    /// The number of callers in ``slots``.
    var waiterCount: Int

    init(id: RunID, context: Context, firstWaiter: (id: WaiterID, continuation: Continuation)) {
      self.id = id
      self.context = context
      self.slots = [firstWaiter]
      self.waiterCount = 1
    }

    /// The callers, in the order in which they joined.
    var waiters: some Sequence<(id: WaiterID, continuation: Continuation)> {
      self.slots.lazy.compactMap { $0 }
    }
  }

  /// A run that left ``runs`` (it finished, or lost its callers) before both its task was
  /// attached and it finished.
  private struct LeftRun: Sendable {
    var isTaskAttached: Bool
    var isFinished: Bool
  }

  /// Whether a cancelled caller stops waiting, which it does when the failure type can hold
  /// `CancellationError`.
  package let stopsWaitingOnCancellation: Bool

  /// The runs that callers can join, oldest first.
  private var runs = [Run]()

  /// The runs that left ``runs`` but whose task is not attached yet or has not finished yet.
  private var leftRuns = [RunID: LeftRun]()

  /// Where each waiting caller is: its run and its slot in the run's ``Run/slots``, so that a
  /// cancelled caller is found in O(1).
  private var locations = [WaiterID: (run: RunID, slot: Int)]()

  /// The id of the next run to start.
  private var nextRunID: RunID = 0

  /// Creates a machine with no run in flight.
  ///
  /// - Parameter stopsWaitingOnCancellation: Whether a cancelled caller stops waiting.
  package init(stopsWaitingOnCancellation: Bool) {
    self.stopsWaitingOnCancellation = stopsWaitingOnCancellation
  }
}

// MARK: - Joining

extension DeduplicationStateMachine {
  /// The oldest run that a caller can join among those with an id of `oldest` or more.
  ///
  /// A caller asks for candidates one at a time, from `0` and then from the id after the last
  /// one it considered, and calls its predicate on each outside its owner's lock.
  ///
  /// - Parameter oldest: The smallest id to consider.
  /// - Returns: The run's id and the context it started with, or `nil` when there is none.
  package func candidate(from oldest: RunID) -> (id: RunID, context: Context)? {
    // NB: A store has one run in flight, or a few (pages of a paginated request).
    self.runs.first { $0.id >= oldest }.map { ($0.id, $0.context) }
  }

  /// What the owner does after a caller's ``join(_:_:context:choosing:consideredBefore:isCancelled:)``.
  package enum JoinAction: Sendable {
    /// The caller joined a run in flight and waits for its result.
    case wait
    /// The caller is the only waiter of a new run with this id: start its task and attach it
    /// with ``taskCreated(_:for:)``.
    case startRun(RunID)
    /// The caller was cancelled before it joined: resume it with `CancellationError`.
    case resumeCancelled(Continuation)
    /// Runs that the caller has not considered started since it looked: consider candidates
    /// again from this id, then join again.
    case reconsider(from: RunID)
  }

  /// A caller joins the run it chose, or starts one.
  ///
  /// - Parameters:
  ///   - waiter: The caller's id.
  ///   - continuation: Resumes the caller.
  ///   - context: The caller's context, which a run that it starts keeps for later callers.
  ///   - run: The run the caller chose, or `nil` when it chose none.
  ///   - horizon: The caller considered every run with a smaller id.
  ///   - isCancelled: Whether the caller's task is cancelled now.
  /// - Returns: What to do next.
  package mutating func join(
    _ waiter: WaiterID,
    _ continuation: Continuation,
    context: Context,
    choosing run: RunID?,
    consideredBefore horizon: RunID,
    isCancelled: Bool
  ) -> JoinAction {
    precondition(run.map { $0 < horizon } ?? true, "A caller chose a run it did not consider.")
    // NB: A caller cancelled before it joins found nothing to remove when its cancellation
    // arrived, so it is answered here. Its owner reads `isCancelled` under the same lock as this
    // event, so a cancellation after it finds the caller among the waiters.
    if isCancelled && self.stopsWaitingOnCancellation {
      return .resumeCancelled(continuation)
    }
    if let run, let index = self.runs.firstIndex(where: { $0.id == run }) {
      self.locations[waiter] = (run, self.runs[index].slots.endIndex)
      self.runs[index].slots.append((waiter, continuation))
      self.runs[index].waiterCount += 1
      return .wait
    }
    // NB: The chosen run finished or lost its callers since the caller looked, or the caller
    // chose none. Runs with a smaller id were considered and not chosen.
    if self.runs.contains(where: { $0.id >= horizon }) {
      return .reconsider(from: horizon)
    }
    let id = self.nextRunID
    self.nextRunID += 1
    self.runs.append(Run(id: id, context: context, firstWaiter: (waiter, continuation)))
    self.locations[waiter] = (id, 0)
    return .startRun(id)
  }
}

// MARK: - Tasks and results

extension DeduplicationStateMachine {
  /// What the owner does after ``taskCreated(_:for:)``.
  package enum TaskAction: Sendable {
    /// Nothing: the task runs for its callers, or has finished already.
    case none
    /// The run lost its callers before its task existed: cancel the task.
    case cancel(RunTask)
  }

  /// The owner created the task of a run that ``join(_:_:context:choosing:consideredBefore:isCancelled:)``
  /// asked it to start.
  ///
  /// - Parameters:
  ///   - task: The run's task.
  ///   - run: The run's id.
  /// - Returns: What to do with the task.
  package mutating func taskCreated(_ task: RunTask, for run: RunID) -> TaskAction {
    if let index = self.runs.firstIndex(where: { $0.id == run }) {
      precondition(self.runs[index].task == nil, "A run's task was attached twice.")
      self.runs[index].task = task
      return .none
    }
    guard var left = self.leftRuns[run], !left.isTaskAttached else {
      preconditionFailure("A task was attached to a run that never started, or twice.")
    }
    if left.isFinished {
      self.leftRuns[run] = nil
      return .none
    }
    left.isTaskAttached = true
    self.leftRuns[run] = left
    return .cancel(task)
  }

  /// A run finished; its result goes to the continuations returned.
  ///
  /// - Parameter run: The run's id.
  /// - Returns: The callers waiting for the run, to resume with its result; none when the run
  ///   lost its callers.
  package mutating func finish(_ run: RunID) -> [Continuation] {
    if let index = self.runs.firstIndex(where: { $0.id == run }) {
      let finished = self.runs.remove(at: index)
      if finished.task == nil {
        self.leftRuns[run] = LeftRun(isTaskAttached: false, isFinished: true)
      }
      var continuations = [Continuation]()
      continuations.reserveCapacity(finished.waiterCount)
      for waiter in finished.waiters {
        self.locations[waiter.id] = nil
        continuations.append(waiter.continuation)
      }
      return continuations
    }
    guard let left = self.leftRuns[run], !left.isFinished else {
      preconditionFailure("A run finished that never started, or twice.")
    }
    if left.isTaskAttached {
      self.leftRuns[run] = nil
    } else {
      self.leftRuns[run]?.isFinished = true
    }
    return []
  }
}

// MARK: - Cancellation

extension DeduplicationStateMachine {
  /// What the owner does after ``cancel(_:)``.
  package enum CancelAction: Sendable {
    /// Nothing: the caller has its result already, has not joined yet, or keeps waiting.
    case none
    /// Resume the caller with `CancellationError`; its run goes on for other callers, or its
    /// task does not exist yet and is cancelled when it is attached.
    case resumeCancelled(Continuation)
    /// Resume the caller with `CancellationError` and cancel the task of its run, which lost its
    /// last caller.
    case resumeCancelledAndCancelRun(Continuation, RunTask)
  }

  /// A caller's task was cancelled.
  ///
  /// - Parameter waiter: The caller's id.
  /// - Returns: What to do.
  package mutating func cancel(_ waiter: WaiterID) -> CancelAction {
    guard self.stopsWaitingOnCancellation,
      let location = self.locations.removeValue(forKey: waiter),
      // NB: A store has one run in flight, or a few (pages of a paginated request).
      let runIndex = self.runs.firstIndex(where: { $0.id == location.run }),
      let removed = self.runs[runIndex].slots[location.slot]
    else {
      return .none
    }
    let continuation = removed.continuation
    self.runs[runIndex].slots[location.slot] = nil
    self.runs[runIndex].waiterCount -= 1
    guard self.runs[runIndex].waiterCount == 0 else {
      self.squeezeSlotsIfSparse(ofRunAt: runIndex)
      return .resumeCancelled(continuation)
    }
    // NB: The run lost its last caller, so it is cancelled, and it leaves the runs that callers
    // can join: a caller that comes later starts a run of its own instead of joining one that
    // ends in `CancellationError`.
    let abandoned = self.runs.remove(at: runIndex)
    self.leftRuns[abandoned.id] = LeftRun(
      isTaskAttached: abandoned.task != nil,
      isFinished: false
    )
    guard let task = abandoned.task else { return .resumeCancelled(continuation) }
    return .resumeCancelledAndCancelRun(continuation, task)
  }

  /// Drops the holes from a run's slots once they outnumber its callers, and moves the callers'
  /// locations with them.
  ///
  /// - Complexity: O(1) amortized over the cancellations that made the holes: a squeeze costs
  ///   O(*h* + *c*) for *h* holes and *c* callers, and happens only when *h* > *c*, after *h*
  ///   cancellations since the last one.
  private mutating func squeezeSlotsIfSparse(ofRunAt runIndex: Int) {
    // NB: Trailing holes go at once, so that the common last-in, first-out leaving never squeezes.
    while let last = self.runs[runIndex].slots.last, last == nil {
      self.runs[runIndex].slots.removeLast()
    }
    let run = self.runs[runIndex]
    let holes = run.slots.count - run.waiterCount
    guard holes > run.waiterCount else { return }
    var slots = ContiguousArray<(id: WaiterID, continuation: Continuation)?>()
    slots.reserveCapacity(run.waiterCount)
    for waiter in run.waiters {
      self.locations[waiter.id] = (run.id, slots.endIndex)
      slots.append(waiter)
    }
    self.runs[runIndex].slots = slots
  }
}

// MARK: - Inspection

extension DeduplicationStateMachine {
  /// The runs that callers can join, oldest first, with their callers' ids.
  package var joinableRuns: [(id: RunID, waiters: [WaiterID])] {
    self.runs.map { ($0.id, $0.waiters.map(\.id)) }
  }

  /// Whether nothing is in flight and nothing is left to attach or finish.
  package var isIdle: Bool {
    self.runs.isEmpty && self.leftRuns.isEmpty && self.locations.isEmpty
  }

  /// The number of slots that the runs keep for their callers, holes included, so that tests can
  /// check that holes never outnumber the callers for long.
  package var waiterSlotCount: Int {
    self.runs.reduce(0) { $0 + $1.slots.count }
  }

  /// The number of callers waiting for a run.
  package var waiterCount: Int {
    self.locations.count
  }
}
