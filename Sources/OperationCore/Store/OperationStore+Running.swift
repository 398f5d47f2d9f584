// NB: Imported publicly because the run path is `@inlinable` (see `run(using:handler:)`), and
// inlinable code may only use what the module's clients can see.
public import OperationSynchronization
public import Synchronization

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
  // NB: The run path, from here and from `fetch`, `mutate` and `fetchNextPage` down to recording
  // the result, is `@inlinable`, so that a caller's module compiles it for its own state type.
  // Compiled once here for every state type, each run asked the runtime for the metadata of the
  // generic types it touches (`Result<Value, Failure>`, the storage, the task) dozens of times:
  // about a fifth of a fetch. What it reaches of the store's internals is `@usableFromInline`.
  @discardableResult
  @inlinable
  public func run(
    using context: OperationContext? = nil,
    handler: OperationEventHandler<State> = OperationEventHandler()
  ) async throws(State.Failure) -> State.OperationValue {
    try await self.runTask(using: context, runHandler: RunEventHandler(handler), name: "Task")
      .runIfNeeded()
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
    self.runTask(using: context, runHandler: nil, name: "Task")
  }

  /// Creates a run with a handler for its events and a default task name suffix.
  @inlinable
  package func runTask(
    using context: OperationContext?,
    handler: OperationEventHandler<State>?,
    name: String,
    overridesName: Bool = false
  ) -> OperationTask<State.OperationValue, State.Failure> {
    // NB: Not `handler.flatMap(RunEventHandler.init)`: in unspecialized code, `Optional.flatMap`
    // is a generic call and a metadata lookup on every run.
    let runHandler: RunEventHandler? = if let handler { RunEventHandler(handler) } else { nil }
    return self.runTask(
      using: context,
      runHandler: runHandler,
      name: name,
      overridesName: overridesName
    )
  }

  @inlinable
  func runTask(
    using context: OperationContext?,
    runHandler handler: RunEventHandler?,
    name: String,
    overridesName: Bool = false
  ) -> OperationTask<State.OperationValue, State.Failure> {
    self.lock.withLock { storage in
      self.makeTask(
        in: &storage,
        context: context,
        handler: handler,
        name: name,
        overridesName: overridesName
      )
    }
  }

  @inlinable
  func makeTask(
    in storage: inout Storage,
    context: OperationContext?,
    handler: RunEventHandler?,
    name: String,
    overridesName: Bool
  ) -> OperationTask<State.OperationValue, State.Failure> {
    // NB: A context is a list of entries, and each entry a run adds is an allocation and a walk
    // of the list. Most runs use the store's context and no handler: the entries they share
    // (event sink, task name) are added once, and each run adds one entry, its store and order.
    var context =
      if context == nil && handler == nil {
        self.storeRunContext(suffix: name, overridesName: overridesName, in: &storage)
      } else {
        self.runContext(
          from: context ?? storage.context,
          handler: handler,
          name: name,
          overridesName: overridesName,
          in: &storage
        )
      }
    let order = storage.runs.createRun()
    let sequence = order.sequence
    context.storeRunEntry = StoreRunEntry(
      store: OpaqueOperationStore(erasing: self, operationType: storage.lookupOperationType),
      order: order
    )
    var task = OperationTask<State.OperationValue, State.Failure>(context: context) {
      core,
      context in
      await self.execute(OperationTask(running: core, context: context), sequence: sequence)
    }
    storage.state.scheduleFetchTask(&task)
    storage.runs.attach(task.handle, toRun: sequence)
    self.notifyStateChanged(storage, runHandler: handler)
    return task
  }

  /// The context of a run with the store's context and no handler, made once per suffix.
  @inlinable @inline(__always)
  func storeRunContext(
    suffix: String,
    overridesName: Bool,
    in storage: inout Storage
  ) -> OperationContext {
    for cached in storage.runContexts
    where cached.suffix == suffix && cached.overridesName == overridesName {
      return cached.context
    }
    let context = self.runContext(
      from: storage.context,
      handler: nil,
      name: suffix,
      overridesName: overridesName,
      in: &storage
    )
    storage.runContexts.append(
      Storage.RunContext(suffix: suffix, overridesName: overridesName, context: context)
    )
    return context
  }

  /// `context` with the entries of a run that has `handler`, except its store and order.
  @inlinable
  func runContext(
    from context: OperationContext,
    handler: RunEventHandler?,
    name: String,
    overridesName: Bool,
    in storage: inout Storage
  ) -> OperationContext {
    var context = context
    // NB: Most runs have no handler, in a context that names none: nothing to write.
    if handler != nil || context.runEventHandler != nil {
      context.runEventHandler = handler
    }
    context.operationEventSink = self.eventSink(for: handler, in: &storage)
    if overridesName || context.operationTaskConfiguration.name == nil {
      context.operationTaskConfiguration.name = Self.defaultTaskName(suffix: name, in: &storage)
    }
    return context
  }

  @inlinable @inline(__always)
  func eventSink(
    for handler: RunEventHandler?,
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

  @inlinable @inline(__always)
  static func defaultTaskName(suffix: String, in storage: inout Storage) -> String {
    if let cached = storage.taskNames.first(where: { $0.suffix == suffix }) {
      return cached.name
    }
    let name = "\(typeName(Self.self)) \(suffix)"
    storage.taskNames.append((suffix, name))
    return name
  }

  /// Runs the operation for `task` and records its result; returns the result erased, as the
  /// task keeps it.
  @inlinable
  func execute(
    _ task: OperationTask<State.OperationValue, State.Failure>,
    sequence: Int
  ) async -> Result<any Sendable, any Error> {
    // NB: What comes before and after the operation is synchronous and in functions of their
    // own: every value an asynchronous function touches takes room in its frame, which each run
    // allocates from its task's allocator.
    let run = self.start(task, sequence: sequence)
    let context = task.context
    // NB: Checked only inside another run, which costs a fetch from outside any run nothing.
    let cycle = run.enclosing == nil ? nil : run.cycle
    let continuation = OperationContinuation<State.OperationValue, State.Failure>(receiver: run)
    // NB: A run that is part of a cycle fails at once (see `OperationCycleError`); instruments
    // still see it, as a run that failed. Every other run is the current run of its task while
    // its operation runs, so that the runs the operation starts find it.
    @inline(__always)
    func runOrRefuse() async -> Result<State.OperationValue, State.Failure> {
      if let cycle {
        return .failure(Self.cycleFailure(cycle))
      }
      return await StoreRun.withCurrent(run) {
        do throws(State.Failure) {
          return .success(
            try await self.operation.run(
              on: self.operation.actor,
              in: context,
              with: continuation
            )
          )
        } catch {
          return .failure(error)
        }
      }
    }
    // NB: Without instruments (most stores), the run skips the instruments' wrapper.
    let result =
      context.operationInstruments.isEmpty
      ? await runOrRefuse() : await context.performWork(.run) { await runOrRefuse() }
    // NB: A run's effects end before its result is recorded, so that a mutation stays loading
    // while, for example, the stores it invalidates run again. Most runs have none, and their
    // result is recorded under the lock that finds none.
    if let effectEnds = self.recordReturn(result, of: run, unlessEffectsEnd: true) {
      await self.end(effectEnds, with: result)
      _ = self.recordReturn(result, of: run, unlessEffectsEnd: false)
    }
    switch result {
    case .success(let value): return .success(value)
    case .failure(let error): return .failure(error)
    }
  }

  /// Starts a run of `task`: tells those who listen, and returns the run.
  @inlinable @inline(never)
  func start(
    _ task: OperationTask<State.OperationValue, State.Failure>,
    sequence: Int
  ) -> YieldingStoreRun<State> {
    let context = task.context
    let handler = context.runEventHandler
    // NB: Most runs have no one to tell, and find it out without the lock; see
    // `subscriberCountHint`.
    if handler != nil || self.subscriberCountHint.load(ordering: .sequentiallyConsistent) > 0 {
      self.lock.withLock { storage in
        guard Self.hasReceivers(storage, runHandler: handler) else { return }
        self.notify(storage, runHandler: handler) { $0.onRunStarted?(context) }
      }
    }
    return YieldingStoreRun(
      store: self,
      enclosing: StoreRun.current,
      task: task,
      sequence: sequence,
      handler: handler
    )
  }

  /// Records that `run` returned `result`, under the store's lock; when `unlessEffectsEnd` and
  /// the run has effects still to end, records nothing and returns them instead.
  @inlinable @inline(never)
  func recordReturn(
    _ result: Result<State.OperationValue, State.Failure>,
    of run: YieldingStoreRun<State>,
    unlessEffectsEnd: Bool
  ) -> [RunEffects.End]? {
    var context = run.task.context
    context.operationResultUpdateReason = .returnedFinalResult
    return self.lock.withLock { storage -> [RunEffects.End]? in
      if unlessEffectsEnd && storage.runs.hasEffects {
        let ends = storage.runs.takeEffectEnds(ofRun: run.sequence)
        if !ends.isEmpty { return ends }
      }
      self.recordReturn(
        result,
        ofRun: run.sequence,
        task: run.task,
        context: context,
        handler: run.handler,
        in: &storage
      )
      return nil
    }
  }

  /// Ends a run's effects with its result.
  ///
  /// NB: Out of `execute`, whose frame every run allocates, as few runs have effects.
  @inline(never) @usableFromInline
  func end(
    _ effectEnds: [RunEffects.End],
    with result: Result<State.OperationValue, State.Failure>
  ) async {
    await RunEffects.end(effectEnds, with: result.map { $0 as any Sendable }.mapError { $0 })
  }

  /// Records that a run returned, under the store's lock: its events, its result when the state
  /// accepts it, and the collection timer when the store became unobserved.
  @inlinable
  func recordReturn(
    _ result: Result<State.OperationValue, State.Failure>,
    ofRun sequence: Int,
    task: OperationTask<State.OperationValue, State.Failure>,
    context: OperationContext,
    handler: RunEventHandler?,
    in storage: inout Storage
  ) {
    if Self.hasReceivers(storage, runHandler: handler) {
      let runContext = task.context
      self.notify(storage, runHandler: handler) {
        $0.onResultReceived?(result, context)
        $0.onRunEnded?(runContext)
      }
    }
    let isSuccess: Bool
    if case .success = result { isSuccess = true } else { isSuccess = false }
    // NB: Marked under the lock that yields take, so that a yield either lands before the final
    // result or is ignored; it can never overwrite the final result.
    let action = storage.runs.returned(
      run: sequence,
      succeeded: isSuccess,
      canCollect: storage.canCollect
    )
    if action.recordsResult {
      var finishedTask = task
      finishedTask.context = context
      storage.state.update(with: result, for: finishedTask)
      if isSuccess {
        self.notifyValueRecorded(storage)
      }
    }
    if action.finishesRun {
      storage.state.finishFetchTask(task)
    }
    self.notifyStateChanged(storage, runHandler: handler)
    if let generation = action.startsCollectionTimer {
      self.startCollectionTimer(generation: generation, in: &storage)
    }
  }

  @usableFromInline
  func receive(
    _ result: sending Result<State.OperationValue, State.Failure>,
    context: OperationContext,
    for task: OperationTask<State.OperationValue, State.Failure>,
    sequence: Int,
    handler: RunEventHandler?
  ) {
    var context = context
    context.operationResultUpdateReason = .yieldedResult
    let result = result
    context.yieldWillLockStore?()
    self.lock.withLock { storage in
      guard !storage.runs.hasReturned(sequence) else {
        reportWarning(.queryYieldedAfterReturning(result))
        return
      }
      if Self.hasReceivers(storage, runHandler: handler) {
        self.notify(storage, runHandler: handler) { [context] in
          $0.onResultReceived?(result, context)
        }
      }
      guard storage.runs.yielded(byRun: sequence) else { return }
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

// MARK: - Yields

/// A store's run that receives its operation's yields, so that the run and its continuation are
/// one allocation.
// NB: `@unchecked Sendable` is safe for the reason `StoreRun` gives: every stored property is a
// `let` of a `Sendable` type.
@usableFromInline
final class YieldingStoreRun<State: OperationState & Sendable>: StoreRun,
  OperationResultReceiver, @unchecked Sendable
{
  @usableFromInline let operationStore: OperationStore<State>
  @usableFromInline let task: OperationTask<State.OperationValue, State.Failure>
  @usableFromInline let sequence: Int
  @usableFromInline let handler: RunEventHandler?

  @inlinable
  init(
    store: OperationStore<State>,
    enclosing: StoreRun?,
    task: OperationTask<State.OperationValue, State.Failure>,
    sequence: Int,
    handler: RunEventHandler?
  ) {
    self.operationStore = store
    self.task = task
    self.sequence = sequence
    self.handler = handler
    super.init(store: store, enclosing: enclosing)
  }

  @inlinable
  func receive(
    _ result: sending Result<State.OperationValue, State.Failure>,
    context: OperationContext?
  ) {
    self.operationStore.receive(
      result,
      context: context ?? self.task.context,
      for: self.task,
      sequence: self.sequence,
      handler: self.handler
    )
  }
}

// MARK: - Context entries

extension OperationContext {
  /// The store that is running the operation, inside a run.
  public var runningOperationStore: OpaqueOperationStore? {
    get { self.storeRunEntry.store }
    set { self.storeRunEntry.store = newValue }
  }

  /// The order of the store's run that this context belongs to; `nil` outside a store's run.
  @usableFromInline
  package var storeRunOrder: StoreRunOrder? {
    get { self.storeRunEntry.order }
    set { self.storeRunEntry.order = newValue }
  }

  /// The running store and its run's order, in one entry, as each run sets both.
  @usableFromInline
  var storeRunEntry: StoreRunEntry {
    get { self[StoreRunEntryKey.self] }
    set { self[StoreRunEntryKey.self] = newValue }
  }

  private enum StoreRunEntryKey: Key {
    static let defaultValue = StoreRunEntry(store: nil, order: nil)
  }

  @usableFromInline
  var runEventHandler: RunEventHandler? {
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
  @usableFromInline
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
  @usableFromInline
  package var operationEventSink: OperationEventSink? {
    get { self[OperationEventSinkKey.self] }
    set { self[OperationEventSinkKey.self] = newValue }
  }

  private enum OperationEventSinkKey: Key {
    static let defaultValue: OperationEventSink? = nil
  }
}

/// The store that runs an operation and the order of its run, carried in the run's context.
@usableFromInline
struct StoreRunEntry: Sendable {
  @usableFromInline var store: OpaqueOperationStore?
  @usableFromInline var order: StoreRunOrder?

  @inlinable
  init(store: OpaqueOperationStore?, order: StoreRunOrder?) {
    self.store = store
    self.order = order
  }
}

/// Delivers an operation's own events to the subscribers of the store that runs it.
@usableFromInline
package struct OperationEventSink: Sendable {
  private let deliver: @Sendable (any Sendable, OperationContext) -> Void

  @usableFromInline
  package init(deliver: @escaping @Sendable (any Sendable, OperationContext) -> Void) {
    self.deliver = deliver
  }

  /// Sends an event to the store's subscribers and to the run's handler.
  ///
  /// - Parameters:
  ///   - event: The event.
  ///   - context: The context of the event.
  @usableFromInline
  package func send(_ event: any Sendable, in context: OperationContext) {
    self.deliver(event, context)
  }
}

/// The event handler of one run, carried in the run's context so that its events reach it alone.
///
/// The run carries it erased, so that a run without a handler (most runs) never asks the runtime
/// for the handler's generic type; `OperationStore.notify` unwraps it when it delivers.
@usableFromInline
struct RunEventHandler: Sendable {
  @usableFromInline let base: any Sendable

  /// Erases `handler`; `nil` when it has no callback, since it would receive nothing.
  @inlinable
  init?<State>(_ handler: OperationEventHandler<State>) {
    guard !handler.isEmpty else { return nil }
    self.base = handler
  }

  /// The handler, as the store of `State` erased it; `nil` when another store's run made it.
  ///
  /// A store puts its run's handler in the run's context, but a task's context can be replaced
  /// before the task starts, with one that comes from another store's run.
  @usableFromInline
  func handler<State>(of _: State.Type) -> OperationEventHandler<State>? {
    self.base as? OperationEventHandler<State>
  }
}
