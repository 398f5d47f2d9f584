/// A state that the run engine drives: ``LoadableState`` and ``ProcessState``.
///
/// Together with ``RunKind``, it is all the engine knows about a family: what a reset sets, and
/// which errors thrown from a run ask for a cancel or a reset.
protocol ControlledState {
  /// The error that cancels a run when thrown from it (``CancelLoadable``, ``CancelProcess``).
  associatedtype CancelRequest: Error

  /// The error that resets the state when thrown from a run (``ResetLoadable``,
  /// ``ResetProcess``).
  associatedtype ResetRequest: Error

  /// The state a reset sets: ``LoadableState/absent`` or ``ProcessState/idle``.
  static var resetState: Self { get }

  /// Whether the state already is ``resetState``.
  var isResetState: Bool { get }
}

/// The plan of one run: how it changes the state when it starts and when it fails, and its work.
struct RunPlan<State> {
  /// Whether the run skips its starting state.
  var silently: Bool

  /// The state to set when the run starts, or `nil` when the current state already says so.
  var starting: @MainActor (State) -> State?

  /// The state for an error that is neither a cancellation nor a cancel or reset request.
  var failed: @MainActor (any Error) -> State

  /// The work. It may yield states while it runs and returns the final state, or `nil` to keep
  /// the last yielded one.
  var body: @MainActor (_ yield: @escaping @MainActor (State) -> Void) async throws -> State?
}

/// Runs the work of a state, whatever holds the state and whatever its family: the one engine
/// behind ``LoadableBinding`` and ``ProcessBinding``, and through them behind ``LoadableSupport``,
/// ``ProcessSupport``, ``Loadable`` and ``Process``.
///
/// Rules shared by every run:
/// - Starting a run cancels the task in the slot first: a new load replaces the previous one.
/// - A run whose task is cancelled changes nothing any more: its yields, its result and its error
///   (whatever it is) are dropped, so cancelling never changes the state, and a replaced run can
///   never overwrite its successor.
/// - `CancellationError` leaves the state as it is; a cancel request cancels the run; a reset
///   request resets the state and cancels the run; any other error becomes the failed state.
///
/// Everything here, the state it reads and writes included, lives on the main actor: no lock is
/// involved, and `read` hands the state only to main-actor code.
@MainActor
struct StateController<State: ControlledState> {
  let read: @MainActor () -> State
  let write: @MainActor (State) -> Void
  let slot: any TaskSlot

  /// Cancels the running task, if any; the state is left as it is.
  func cancel() {
    self.slot.cancel()
  }

  /// Resets the state, unless it is already reset, then cancels the running task.
  func reset() {
    self.resetState()
    self.slot.cancel()
  }

  /// Cancels the running task, then sets the state.
  func assign(_ state: State) {
    self.slot.cancel()
    self.write(state)
  }

  /// Starts a run in a new task that the slot holds until the run ends.
  func start(_ plan: RunPlan<State>, priority: TaskPriority?) -> Task<Void, Never> {
    self.slot.cancel()
    self.begin(plan)
    let token = RunToken.make()
    let task = Task(priority: priority) { @MainActor in
      await self.perform(plan, token: token)
      self.slot.finish(token)
    }
    // NB: The task cannot finish before this line: it runs on the main actor, which this
    // function holds until it returns.
    self.slot.entry = TaskSlotEntry(token: token, task: task)
    return task
  }

  /// Runs in the calling task; the slot's task, if any, is cancelled first.
  func run(_ plan: RunPlan<State>) async {
    self.slot.cancel()
    self.begin(plan)
    await self.perform(plan, token: nil)
  }

  private func resetState() {
    guard !self.read().isResetState else { return }
    self.write(State.resetState)
  }

  private func begin(_ plan: RunPlan<State>) {
    guard !plan.silently, let state = plan.starting(self.read()) else { return }
    self.write(state)
  }

  private func perform(_ plan: RunPlan<State>, token: RunToken?) async {
    let write = self.write
    do {
      let final = try await plan.body { state in
        guard !Task.isCancelled else { return }
        write(state)
      }
      guard !Task.isCancelled else { return }
      if let final {
        self.write(final)
      }
    } catch {
      guard !Task.isCancelled, !(error is CancellationError) else { return }
      if error is State.CancelRequest {
        self.slot.cancel(ifHolding: token)
      } else if error is State.ResetRequest {
        self.resetState()
        self.slot.cancel(ifHolding: token)
      } else {
        self.write(plan.failed(error))
      }
    }
  }
}

extension StateController {
  /// A controller for a state property of an object, with the object's slot for that property.
  ///
  /// - Parameters:
  ///   - object: The object that holds the state.
  ///   - keyPath: The key path of the state.
  init<Root: AnyObject>(_ object: Root, _ keyPath: ReferenceWritableKeyPath<Root, State>) {
    self.init(
      read: { object[keyPath: keyPath] },
      write: { object[keyPath: keyPath] = $0 },
      slot: ObjectTaskSlot(object: object, keyPath: keyPath)
    )
  }

  /// A controller for the state of a wrapper's storage, with the storage's slot.
  ///
  /// - Parameter storage: The storage.
  init(_ storage: StateStorage<State>) {
    self.init(
      read: { storage.state },
      write: { storage.state = $0 },
      slot: storage.slot
    )
  }
}
