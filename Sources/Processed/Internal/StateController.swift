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

/// Runs the work of a state, whatever holds the state: an object's property (``LoadableSupport``,
/// ``ProcessSupport``) or a wrapper's storage (``Loadable``, ``Process``, and their bindings).
///
/// Rules shared by every run:
/// - Starting a run cancels the task in the slot first: a new load replaces the previous one.
/// - A run whose task is cancelled changes nothing any more: its yields, its result and its error
///   (whatever it is) are dropped, so cancelling never changes the state, and a replaced run can
///   never overwrite its successor.
/// - `CancellationError` leaves the state as it is; a cancel request cancels the run; a reset
///   request resets the state and cancels the run; any other error becomes the failed state.
@MainActor
struct StateController<State> {
  let read: @MainActor () -> State
  let write: @MainActor (State) -> Void
  let slot: any TaskSlot
  /// The reset state, or `nil` when the state is already reset.
  let resetState: @MainActor (State) -> State?
  let isCancelRequest: @MainActor (any Error) -> Bool
  let isResetRequest: @MainActor (any Error) -> Bool

  /// Cancels the running task, if any; the state is left as it is.
  func cancel() {
    self.slot.cancel()
  }

  /// Resets the state, unless it is already reset, then cancels the running task.
  func reset() {
    if let state = self.resetState(self.read()) {
      self.write(state)
    }
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
      if self.isCancelRequest(error) {
        self.slot.cancel(ifHolding: token)
      } else if self.isResetRequest(error) {
        if let state = self.resetState(self.read()) {
          self.write(state)
        }
        self.slot.cancel(ifHolding: token)
      } else {
        self.write(plan.failed(error))
      }
    }
  }
}
