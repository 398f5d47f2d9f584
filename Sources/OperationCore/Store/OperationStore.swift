import Synchronization

/// The runtime of a stateful operation: it runs the operation and keeps its state for every
/// observer.
///
/// Get a store from an ``OperationClient``, which keeps one store per ``OperationPath``, or create
/// a standalone one with `detached(…)`:
///
/// ```swift
/// let store = client.store(for: Post.query(for: 1))
/// let post = try await store.fetch()
/// store.currentValue  // The post.
/// store.isLoading  // false
/// ```
///
/// The store is `@dynamicMemberLookup` over its ``state``, so `store.isLoading`, `store.error`,
/// `store.status` and the other state members read the current state.
///
/// ## Events
///
/// ``subscribe(with:)-(OperationEventHandler<State>)`` delivers the current state at once, then
/// every change, in the order the changes happened, never while the store's lock is held. The
/// events of a run, in order: `stateChanged` (loading), `runStarted`, one `resultReceived` per
/// yield followed by a `stateChanged`, the final `resultReceived`, `runEnded`, and the final
/// `stateChanged`. A handler passed to ``run(using:handler:)`` receives the events of that run
/// only.
///
/// ## Concurrency
///
/// The store is `Sendable`. Its state sits behind one lock that ``withExclusiveAccess(_:)`` may
/// hold across several reads and writes. The operation runs on an actor of the store's own, which
/// it receives as `isolation`, so that runs of an operation that is not `Sendable` never overlap
/// except at suspension points, as the compiler's checks assume. The actor serialises only the
/// operation's own code: the store's bookkeeping takes its lock, never the actor.
@dynamicMemberLookup
public final class OperationStore<State: OperationState & Sendable>: OperationPathable, Sendable {
  /// The path of the operation this store runs.
  public let path: OperationPath

  /// Whether the state is paginated, worked out once because a dynamic cast is not cheap.
  package let isPaginated = State.self is any _PaginatedStateProtocol.Type

  /// Whether the state is a mutation's, worked out once for the same reason.
  let isMutationStore = State.self is any _MutationStateProtocol.Type

  private let operation: RunBox<State>
  let lock: RecursiveLock<Storage>
  /// What instruments are told of the store, when it had instruments when it was created.
  let instrumentation: StoreInstrumentation?

  /// The number of runs with effects that have not ended; see `RunEffects`.
  let runEffectsCount = Atomic<Int>(0)

  struct Storage: Sendable {
    var state: State
    var context: OperationContext
    /// The number of the next run, so that runs can be ordered by when they were created.
    var nextRunSequence = 0
    /// Runs numbered below this began before the last reset: their results are ignored and the
    /// state, which the reset emptied, is not told that they finished.
    var resetFloor = 0
    /// Runs numbered below this are superseded (by an invalidation's rerun, or by a mutation that
    /// protected the store while they ran): their results do not reach the state, but their tasks
    /// finish as usual.
    var resultFloor = 0
    /// The runs created and not yet finished, for ``OperationStore/cancelRuns()`` and the
    /// collection of unobserved stores; a table, so that thousands of runs in flight (callers of
    /// one deduplicated run) finish in O(1) each; `runIndex` indexes it, and tells its entries
    /// from its holes (see `TaskIndex`).
    var runsInFlight = ContiguousArray<OperationTask<State.OperationValue, State.Failure>>()
    var runIndex = TaskIndex()
    /// The number of the first run whose success ends an invalidation; `nil` when the store is
    /// not invalidated.
    var invalidatedFrom: Int?
    /// The mutations protecting the store, and their optimistic changes.
    var protection = MutationProtection<State.StateValue>()
    /// The timer that collects the store once it has been unobserved for its collection delay.
    var collection = CollectionState()
    /// The work that runs once a run ends, by run number; see `RunEffects`.
    var runEffects = [Int: RunEffects]()
    var subscribers = Subscribers<OperationEventHandler<State>>()
    /// Handlers told of each value the state records, without counting as subscribers; see
    /// `observeRecordedValues(_:)`.
    var valueObservers = Subscribers<@Sendable (State) -> Void>()
    var automaticRunTask: OperationTask<State.OperationValue, State.Failure>?
    /// The default task names made so far, by suffix, so that a run does not build its name again.
    var taskNames = [(suffix: String, name: String)]()
    /// The event sink of runs without a handler of their own, made once.
    var eventSink: OperationEventSink?
    /// The subscriptions of the context's controllers, released (and so cancelled) with the store.
    var controllerSubscriptions = [OperationSubscription]()
    /// The type of operation that finds this store in a client; see `lookupOperationType`.
    var lookupOperationType: (any Any.Type)?
  }

  package init<Operation: StatefulOperationRequest>(
    operation: sending Operation,
    initialState: Operation.State,
    initialContext: OperationContext
  ) where Operation.State == State {
    var context = initialContext
    operation.setup(context: &context)
    self.path = operation.path
    // NB: Only instruments read the names, so stores without instruments do not build them.
    self.instrumentation =
      context.operationInstruments.isEmpty
      ? nil
      : StoreInstrumentation(
        operationTypeName: operation._debugTypeName,
        pathDescription: operation.path.description
      )
    self.operation = IsolatedRunBox(operation)
    self.lock = RecursiveLock(Storage(state: initialState, context: context))
    self.attachControllers(context: context, initialState: initialState)
  }

  private func attachControllers(context: OperationContext, initialState: State) {
    func control<Controller: OperationController>(
      _ controller: Controller
    ) -> OperationSubscription? {
      let controls = OperationControls(
        store: self,
        defaultContext: context,
        initialState: initialState
      )
      guard let controls = controls as? OperationControls<Controller.State> else { return nil }
      return controller.control(with: controls)
    }
    // NB: Controllers with nothing to watch return the empty subscription, which need not be
    // kept.
    let subscriptions = context.operationControllers.compactMap { control($0) }
      .filter { $0 != .empty }
    guard !subscriptions.isEmpty else { return }
    self.lock.withLock { $0.controllerSubscriptions = subscriptions }
  }
}

// MARK: - Creation

extension OperationStore {
  /// Creates a store that no client manages.
  ///
  /// The store's context has no ``OperationContext/operationClient``, and automatic running is
  /// off unless a modifier enables it.
  ///
  /// - Parameters:
  ///   - operation: The operation to run.
  ///   - initialState: The state to start with.
  ///   - initialContext: The context before the operation's setup.
  /// - Returns: A new store.
  public static func detached<Operation: StatefulOperationRequest>(
    operation: sending Operation,
    initialState: Operation.State,
    initialContext: OperationContext = OperationContext()
  ) -> OperationStore<Operation.State> where State == Operation.State {
    OperationStore(operation: operation, initialState: initialState, initialContext: initialContext)
  }
}

// MARK: - State

extension OperationStore {
  /// The context that runs use unless one is passed in.
  public var context: OperationContext {
    get { self.lock.withLock { $0.context } }
    set { self.lock.withLock { $0.context = newValue } }
  }

  /// The current state.
  public var state: State {
    self.lock.withLock { $0.state }
  }

  /// Reads a member of the current state.
  public subscript<NewValue: Sendable>(dynamicMember keyPath: KeyPath<State, NewValue>) -> NewValue
  {
    self.lock.withLock { $0.state[keyPath: keyPath] }
  }

  /// Runs `body` while holding the store's lock, so that several reads and writes happen as one.
  ///
  /// The lock is reentrant: `body` may use every member of the store. Events that `body` causes
  /// are delivered after it returns.
  ///
  /// ```swift
  /// store.withExclusiveAccess { store in
  ///   store.currentValue = store.currentValue.map { $0 + 1 }
  /// }
  /// ```
  ///
  /// - Parameter body: The work to do under the lock.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  public func withExclusiveAccess<T>(
    _ body: (OperationStore<State>) throws -> sending T
  ) rethrows -> sending T {
    try self.lock.withLockHeld { () throws -> T in try body(self) }
  }

  /// The current value; setting it records a successful update and notifies subscribers.
  public var currentValue: State.StateValue {
    get { self.lock.withLock { $0.state.currentValue } }
    set { self.setResult(to: .success(newValue)) }
  }

  /// Records a value or an error as if the operation produced it, and notifies subscribers.
  ///
  /// - Parameters:
  ///   - result: The value or error.
  ///   - context: The context of the update; the store's context by default.
  public func setResult(
    to result: Result<State.StateValue, State.Failure>,
    using context: OperationContext? = nil
  ) {
    let rebased = self.lock.withLock { storage in
      self.record(result, using: context, in: &storage)
    }
    // NB: Optimistic changes in flight are applied again on top of the new value after the lock
    // is released, as they are your code.
    if rebased {
      self.reapplyOptimisticChanges(using: context)
    }
  }

  /// Restores the initial state and cancels the runs in flight.
  ///
  /// Results of runs that started before the reset are ignored, even those of runs that ignore
  /// cancellation. Subscribers receive the reset state before the runs are cancelled.
  ///
  /// - Parameter context: The context of the reset; the store's context by default.
  public func resetState(using context: OperationContext? = nil) {
    self.lock.withLock { storage in
      storage.resetFloor = storage.nextRunSequence
      storage.resultFloor = storage.nextRunSequence
      storage.invalidatedFrom = nil
      storage.protection.dropChanges()
      storage.runsInFlight.removeAll()
      storage.runIndex.removeAll()
      let effect = storage.state.reset(using: context ?? storage.context)
      self.notifyStateChanged(storage, runHandler: nil)
      self.lock.enqueue { effect.tasksCancellable.cancel() }
    }
  }

  /// Whether the value is stale; with no stale condition in the context, always `true`.
  ///
  /// The stale predicates run after the store's lock is released, on a snapshot of the state and
  /// context (unless the caller holds the lock through ``withExclusiveAccess(_:)``).
  public var isStale: Bool {
    let (state, context, isInvalidated) = self.lock.withLock {
      ($0.state, $0.context, $0.invalidatedFrom != nil)
    }
    return isInvalidated || Self.isStale(state, in: context)
  }

  /// Whether the store may run the operation by itself, per the context's
  /// ``OperationContext/automaticRunningSpecification``.
  ///
  /// The specification runs after the store's lock is released, on a snapshot of the context.
  public var isAutomaticRunningEnabled: Bool {
    Self.isAutomaticRunningEnabled(in: self.context)
  }

  /// The type of operation that finds this store in a client: the type that a client or
  /// `createStore` was asked for when it made the store (the creator may wrap it in modifiers),
  /// or the first type that found it; `nil` until then.
  package var lookupOperationType: (any Any.Type)? {
    self.lock.withLock { $0.lookupOperationType }
  }

  /// Records the type of operation that finds this store, unless one is recorded already.
  ///
  /// - Parameter type: The type.
  /// - Returns: The recorded type.
  @discardableResult
  package func recordLookupOperationType(_ type: any Any.Type) -> any Any.Type {
    self.lock.withLock { storage in
      if let recorded = storage.lookupOperationType {
        return recorded
      }
      storage.lookupOperationType = type
      return type
    }
  }

  static func isStale(_ state: State, in context: OperationContext) -> Bool {
    context.staleWhenRevalidateCondition.evaluate(state: state, in: context)
  }

  static func isAutomaticRunningEnabled(in context: OperationContext) -> Bool {
    context.automaticRunningSpecification.isSatisfied(in: context)
  }
}

// MARK: - Running

extension OperationStore {
  /// Runs the operation and waits for its value.
  ///
  /// Cancelling the calling task cancels the run. A cancelled run is recorded like a failed
  /// one: the store's status becomes `.result(.failure(CancellationError()))`
  /// (``OperationStatus/isCancelled`` is `true`), and this method throws the `CancellationError`.
  ///
  /// - Parameters:
  ///   - context: The context of the run; the store's context by default.
  ///   - handler: Receives the events of this run only; it does not count as a subscriber.
  /// - Returns: The value of the run.
  /// - Throws: The error of the run, `CancellationError` when it was cancelled.
  @discardableResult
  public func run(
    using context: OperationContext? = nil,
    handler: OperationEventHandler<State> = OperationEventHandler()
  ) async throws(State.Failure) -> State.OperationValue {
    try await self.runTask(using: context, handler: handler, name: "Task").runIfNeeded()
  }

  /// Creates a run of the operation without starting it.
  ///
  /// The state starts loading at once; the run starts when the task is first awaited. Unless the
  /// context names the task, it is named after the store, for example
  /// `OperationStore<QueryState<Int, Error>> Task`.
  ///
  /// - Parameter context: The context of the run; the store's context by default.
  /// - Returns: The task of the run.
  public func runTask(
    using context: OperationContext? = nil
  ) -> OperationTask<State.OperationValue, State.Failure> {
    self.runTask(using: context, handler: nil, name: "Task")
  }

  /// Creates a run with a handler for its events and a default task name suffix.
  package func runTask(
    using context: OperationContext?,
    handler: OperationEventHandler<State>?,
    name: String,
    overridesName: Bool = false
  ) -> OperationTask<State.OperationValue, State.Failure> {
    // NB: A handler without callbacks (the default of `fetch()`) receives nothing, so the run
    // does without one and skips delivering events nobody receives.
    let handler = handler.flatMap { $0.isEmpty ? nil : $0 }
    return self.lock.withLock { storage in
      self.makeTask(
        in: &storage,
        context: context,
        handler: handler,
        name: name,
        overridesName: overridesName
      )
    }
  }

  func makeTask(
    in storage: inout Storage,
    context: OperationContext?,
    handler: OperationEventHandler<State>?,
    name: String,
    overridesName: Bool
  ) -> OperationTask<State.OperationValue, State.Failure> {
    var context = context ?? storage.context
    // NB: The run adds a few entries; making room once spares the context several reallocations.
    context.reserveCapacity(context.count + 5)
    let sequence = storage.nextRunSequence
    storage.nextRunSequence &+= 1
    context.storeRunOrder = StoreRunOrder(sequence: sequence, floor: storage.resultFloor)
    context.runningOperationStore = OpaqueOperationStore(erasing: self)
    context.runEventHandler = handler.map(RunEventHandler.init)
    context.operationEventSink = self.eventSink(for: handler, in: &storage)
    if overridesName || context.operationTaskConfiguration.name == nil {
      context.operationTaskConfiguration.name = Self.defaultTaskName(suffix: name, in: &storage)
    }
    var task = OperationTask<State.OperationValue, State.Failure>(context: context) {
      task throws(State.Failure) in
      try await self.execute(task, sequence: sequence)
    }
    storage.state.scheduleFetchTask(&task)
    if storage.runIndex.append(task.id) {
      storage.runsInFlight.append(task)
    }
    self.notifyStateChanged(storage, runHandler: handler)
    return task
  }

  private func eventSink(
    for handler: OperationEventHandler<State>?,
    in storage: inout Storage
  ) -> OperationEventSink {
    if handler == nil, let sink = storage.eventSink {
      return sink
    }
    let sink = OperationEventSink { [weak self] event, eventContext in
      self?.notify(runHandler: handler) { $0.onOperationEvent?(event, eventContext) }
    }
    if handler == nil {
      storage.eventSink = sink
    }
    return sink
  }

  private static func defaultTaskName(suffix: String, in storage: inout Storage) -> String {
    if let cached = storage.taskNames.first(where: { $0.suffix == suffix }) {
      return cached.name
    }
    let name = "\(typeName(Self.self)) \(suffix)"
    storage.taskNames.append((suffix, name))
    return name
  }

  private func execute(
    _ task: OperationTask<State.OperationValue, State.Failure>,
    sequence: Int
  ) async throws(State.Failure) -> State.OperationValue {
    let context = task.context
    let handler = context.runEventHandler?.base as? OperationEventHandler<State>
    self.lock.withLock { storage in
      guard Self.hasReceivers(storage, runHandler: handler) else { return }
      self.notify(storage, runHandler: handler) { $0.onRunStarted?(context) }
    }
    let run = StoreRun(store: self, enclosing: StoreRun.current)
    // NB: Checked only inside another run, which costs a fetch from outside any run nothing.
    let cycle = run.enclosing == nil ? nil : run.cycle
    let continuation = OperationContinuation<State.OperationValue, State.Failure> {
      result,
      yieldContext in
      self.receive(
        result,
        context: yieldContext ?? context,
        for: task,
        run: run,
        sequence: sequence,
        handler: handler
      )
    }
    func runOperation() async -> Result<State.OperationValue, State.Failure> {
      do throws(State.Failure) {
        return .success(try await self.operation.run(in: context, with: continuation))
      } catch {
        return .failure(error)
      }
    }
    // NB: A run that is part of a cycle fails at once (see `OperationCycleError`); instruments
    // still see it, as a run that failed. Every other run is the current run of its task while
    // its operation runs, so that the runs the operation starts find it.
    func runOrRefuse() async -> Result<State.OperationValue, State.Failure> {
      if let cycle {
        return .failure(Self.cycleFailure(cycle))
      }
      return await StoreRun.$current.withValue(run) { await runOperation() }
    }
    let result = await context.performWork(.run) { await runOrRefuse() }
    var finalContext = context
    finalContext.operationResultUpdateReason = .returnedFinalResult
    // NB: A run's effects end before its result is recorded, so that a mutation stays loading
    // while, for example, the stores it invalidates run again. Most runs have none, which the
    // counter tells without the lock.
    if self.runEffectsCount.load(ordering: .relaxed) > 0,
      let effects = self.lock.withLock({ $0.runEffects.removeValue(forKey: sequence) })
    {
      self.runEffectsCount.subtract(1, ordering: .relaxed)
      await effects.end(with: result.map { $0 as any Sendable }.mapError { $0 as any Error })
    }
    self.lock.withLock { storage in
      // NB: Marked under the lock that yields take, so that a yield either lands before the
      // final result or is ignored; it can never overwrite the final result.
      run.hasReturned = true
      if Self.hasReceivers(storage, runHandler: handler) {
        self.notify(storage, runHandler: handler) { [finalContext] in
          $0.onResultReceived?(result, finalContext)
          $0.onRunEnded?(context)
        }
      }
      storage.runsInFlight.apply(storage.runIndex.remove(task.id))

      if sequence >= storage.resetFloor {
        if Self.accepts(sequence, in: &storage) {
          var finishedTask = task
          finishedTask.context = finalContext
          storage.state.update(with: result, for: finishedTask)
          if case .success = result {
            if let from = storage.invalidatedFrom, sequence >= from {
              storage.invalidatedFrom = nil
            }
            self.notifyValueRecorded(storage)
          }
        }
        storage.state.finishFetchTask(task)
      }
      self.notifyStateChanged(storage, runHandler: handler)
      self.scheduleCollectionIfUnobserved(&storage)
    }
    return try result.get()
  }

  private func receive(
    _ result: sending Result<State.OperationValue, State.Failure>,
    context: OperationContext,
    for task: OperationTask<State.OperationValue, State.Failure>,
    run: StoreRun,
    sequence: Int,
    handler: OperationEventHandler<State>?
  ) {
    var context = context
    context.operationResultUpdateReason = .yieldedResult
    let result = result
    context.yieldWillLockStore?()
    self.lock.withLock { storage in
      guard !run.hasReturned else {
        reportWarning(.queryYieldedAfterReturning(result))
        return
      }
      if Self.hasReceivers(storage, runHandler: handler) {
        self.notify(storage, runHandler: handler) { [context] in
          $0.onResultReceived?(result, context)
        }
      }
      guard sequence >= storage.resetFloor, Self.accepts(sequence, in: &storage) else { return }
      var yieldingTask = task
      yieldingTask.context = context
      storage.state.update(with: result, for: yieldingTask)
      if case .success = result {
        self.notifyValueRecorded(storage)
      }
      self.notifyStateChanged(storage, runHandler: handler)
    }
  }
}

extension OperationStore {
  /// Whether a result of run `sequence` may reach the state: not when a later invalidation's
  /// rerun superseded the run, nor while a mutation protects the store. A result refused for the
  /// latter is remembered, so that the store runs again once the protection ends.
  @inline(__always)
  static func accepts(_ sequence: Int, in storage: inout Storage) -> Bool {
    guard sequence >= storage.resultFloor else { return false }
    guard storage.protection.count == 0 else {
      storage.protection.refusedResults = true
      return false
    }
    return true
  }
}

// MARK: - Subscribing

extension OperationStore {
  /// The number of subscribers; handlers passed to `run` do not count.
  public var subscriberCount: Int {
    self.lock.withLock { $0.subscribers.count }
  }

  /// Subscribes to the store's events.
  ///
  /// The handler receives the current state at once. When it is the first subscriber, automatic
  /// running is enabled and the store is stale, the store runs the operation; that run is
  /// cancelled if every subscriber leaves before it finishes, which leaves
  /// `.result(.failure(CancellationError()))` in the store (``OperationStatus/isCancelled``).
  ///
  /// - Parameter handler: The callbacks.
  /// - Returns: A subscription that ends when cancelled or released.
  public func subscribe(with handler: OperationEventHandler<State>) -> OperationSubscription {
    let (id, snapshot) = self.lock.withLock {
      storage -> (Int, (state: State, context: OperationContext, isInvalidated: Bool)?) in
      let state = storage.state
      let context = storage.context
      self.lock.enqueue { handler.onStateChanged?(state, context) }
      let id = storage.subscribers.add(handler)
      guard storage.subscribers.count == 1 else { return (id, nil) }
      self.observationResumed(&storage)
      return (id, (state, context, storage.invalidatedFrom != nil))
    }
    // NB: The run specification and the stale predicates are the user's code, so they run on
    // the snapshot after the lock is released. The run starts if the store still has a
    // subscriber (this one, or one that came meanwhile) and no other automatic run started.
    if let (state, context, isInvalidated) = snapshot,
      Self.isAutomaticRunningEnabled(in: context),
      isInvalidated || Self.isStale(state, in: context)
    {
      let automaticRun = self.lock.withLock { storage in
        guard storage.automaticRunTask == nil, storage.subscribers.count > 0 else {
          return nil as OperationTask<State.OperationValue, State.Failure>?
        }
        let task = self.makeTask(
          in: &storage,
          context: nil,
          handler: nil,
          name: "Task",
          overridesName: false
        )
        storage.automaticRunTask = task
        return task
      }
      automaticRun?.start()
    }
    return OperationSubscription { [weak self] in
      self?.unsubscribe(id: id)
    }
  }

  /// Calls `handler` with the state each time it records a value: the success of a run (final
  /// or yielded) that reaches the state, a value set on the store, or an optimistic change.
  ///
  /// The handler does not count as a subscriber: it starts no run and does not keep the store
  /// from being collected. It is called after the store's lock is released, in order with the
  /// store's events, and only for values, so that watching a store this way costs a run nothing
  /// when no value is recorded and little when one is. Persistence uses it.
  ///
  /// - Parameter handler: Receives the state after each recorded value.
  /// - Returns: A subscription that ends when cancelled or released.
  package func observeRecordedValues(
    _ handler: @escaping @Sendable (State) -> Void
  ) -> OperationSubscription {
    let id = self.lock.withLock { $0.valueObservers.add(handler) }
    return OperationSubscription { [weak self] in
      self?.lock.withLock { _ = $0.valueObservers.remove(id: id) }
    }
  }

  /// Tells the value observers that the state recorded a value; called under the store's lock.
  @inline(__always)
  func notifyValueRecorded(_ storage: Storage) {
    guard storage.valueObservers.count > 0 else { return }
    let state = storage.state
    let handlers = storage.valueObservers.handlers
    self.lock.enqueue {
      for handler in handlers {
        handler(state)
      }
    }
  }

  private func unsubscribe(id: Int) {
    self.lock.withLock { storage in
      guard storage.subscribers.remove(id: id), storage.subscribers.count == 0 else { return }
      if let task = storage.automaticRunTask {
        storage.automaticRunTask = nil
        self.lock.enqueue { task.cancel() }
      }
      self.scheduleCollectionIfUnobserved(&storage)
    }
  }
}

// MARK: - Notifications

extension OperationStore {
  /// Whether an event would reach anyone; when not, the store skips making and queueing it.
  @inline(__always)
  static func hasReceivers(
    _ storage: Storage,
    runHandler: OperationEventHandler<State>?
  ) -> Bool {
    runHandler != nil || storage.subscribers.count > 0
  }

  @inline(__always)
  func notifyStateChanged(_ storage: Storage, runHandler: OperationEventHandler<State>?) {
    guard Self.hasReceivers(storage, runHandler: runHandler) else { return }
    let state = storage.state
    let context = storage.context
    self.notify(storage, runHandler: runHandler) { $0.onStateChanged?(state, context) }
  }

  func notify(
    _ storage: Storage,
    runHandler: OperationEventHandler<State>?,
    _ event: @escaping @Sendable (OperationEventHandler<State>) -> Void
  ) {
    let handlers = storage.subscribers.handlers
    self.lock.enqueue {
      for handler in handlers {
        event(handler)
      }
      if let runHandler {
        event(runHandler)
      }
    }
  }

  private func notify(
    runHandler: OperationEventHandler<State>?,
    _ event: @escaping @Sendable (OperationEventHandler<State>) -> Void
  ) {
    self.lock.withLock { storage in
      guard Self.hasReceivers(storage, runHandler: runHandler) else { return }
      self.notify(storage, runHandler: runHandler, event)
    }
  }
}

// MARK: - Context entries

extension OperationContext {
  /// The store that is running the operation, inside a run.
  public var runningOperationStore: OpaqueOperationStore? {
    get { self[RunningOperationStoreKey.self] }
    set { self[RunningOperationStoreKey.self] = newValue }
  }

  private enum RunningOperationStoreKey: Key {
    static let defaultValue: OpaqueOperationStore? = nil
  }

  fileprivate var runEventHandler: RunEventHandler? {
    get { self[RunEventHandlerKey.self] }
    set { self[RunEventHandlerKey.self] = newValue }
  }

  private enum RunEventHandlerKey: Key {
    static let defaultValue: RunEventHandler? = nil
  }
}

extension OperationContext {
  /// Called by a yield right before it takes the store's lock, so that a test can hold a yield
  /// there while the run returns.
  package var yieldWillLockStore: (@Sendable () -> Void)? {
    get { self[YieldWillLockStoreKey.self] }
    set { self[YieldWillLockStoreKey.self] = newValue }
  }

  private enum YieldWillLockStoreKey: Key {
    static let defaultValue: (@Sendable () -> Void)? = nil
  }

  /// Where an operation sends events of its own kind during a run, for example the page events
  /// of a paginated request; `nil` outside a store's run.
  ///
  /// The store delivers each event to its subscribers' and the run handler's
  /// `onOperationEvent`, in order with its other events.
  package var operationEventSink: OperationEventSink? {
    get { self[OperationEventSinkKey.self] }
    set { self[OperationEventSinkKey.self] = newValue }
  }

  private enum OperationEventSinkKey: Key {
    static let defaultValue: OperationEventSink? = nil
  }
}

/// Delivers an operation's own events to the subscribers of the store that runs it.
package struct OperationEventSink: Sendable {
  private let deliver: @Sendable (any Sendable, OperationContext) -> Void

  package init(deliver: @escaping @Sendable (any Sendable, OperationContext) -> Void) {
    self.deliver = deliver
  }

  /// Sends an event to the store's subscribers and to the run's handler.
  ///
  /// - Parameters:
  ///   - event: The event.
  ///   - context: The context of the event.
  package func send(_ event: any Sendable, in context: OperationContext) {
    self.deliver(event, context)
  }
}

/// The event handler of one run, carried in the run's context so that its events reach it alone.
private struct RunEventHandler: Sendable {
  let base: any Sendable
}

// MARK: - RunBox

/// Holds a store's operation and runs it.
///
/// The operation lives in a subclass typed by it, inline, rather than in an existential box:
/// that saves every store an allocation.
// NB: `@unchecked Sendable` is safe because this class has no state; its one subclass,
// `IsolatedRunBox`, holds the operation and says why sharing it is safe.
private class RunBox<State: OperationState & Sendable>: @unchecked Sendable {
  func run(
    in context: OperationContext,
    with continuation: OperationContinuation<State.OperationValue, State.Failure>
  ) async throws(State.Failure) -> State.OperationValue {
    // NB: Unreachable: stores only make `IsolatedRunBox`es, which override this method.
    fatalError("IsolatedRunBox overrides run(in:with:)")
  }
}

/// Runs the operation on an actor of the store's own, so that runs of an operation that is not
/// `Sendable` never overlap except at suspension points.
///
/// Swift cannot tell at run time whether a type is `Sendable`, and a store is made in generic
/// code that does not know it either, so every store isolates its operation, as swift-operation
/// 0.5 does. The hop costs little: a run's task finds the actor idle and takes it on its own
/// thread.
// NB: `@unchecked Sendable` is safe because the operation, the box's only mutable-by-reference
// state, is touched only by `run(on:in:with:)`, which is isolated to `actor`: the actor
// serialises every run of the operation, as it would if the operation were one of its own
// properties.
private final class IsolatedRunBox<Operation: StatefulOperationRequest>: RunBox<Operation.State>,
  @unchecked Sendable
where Operation.State: Sendable {
  private let actor = OperationStoreActor()

  // NB: Read only in `run(on:in:with:)`, on `actor`, for the reason above. The operation arrived
  // as a `sending` value, so nothing outside the box refers to it.
  private nonisolated(unsafe) let operation: Operation

  init(_ operation: sending Operation) {
    self.operation = operation
  }

  override func run(
    in context: OperationContext,
    with continuation: OperationContinuation<
      Operation.State.OperationValue, Operation.State.Failure
    >
  ) async throws(Operation.State.Failure) -> Operation.State.OperationValue {
    try await self.run(on: self.actor, in: context, with: continuation)
  }

  private func run(
    on actor: isolated OperationStoreActor,
    in context: OperationContext,
    with continuation: OperationContinuation<
      Operation.State.OperationValue, Operation.State.Failure
    >
  ) async throws(Operation.State.Failure) -> Operation.State.OperationValue {
    try await self.operation.run(isolation: actor, in: context, with: continuation)
  }
}

/// The actor on which a store runs its operation; the operation receives it as `isolation`.
private actor OperationStoreActor {}
