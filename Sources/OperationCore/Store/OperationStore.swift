// NB: Imported publicly for the `@inlinable` run path; see `run(using:handler:)`.
public import OperationSynchronization
public import Synchronization

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

  @usableFromInline let operation: RunBox<State>
  @usableFromInline let lock: RecursiveLock<Storage>
  /// The number of subscribers, written under the lock whenever it changes, so that a run can see
  /// without taking the lock that it has no subscriber to tell it started.
  ///
  /// A run that reads it while a subscriber arrives may miss the new subscriber, which then
  /// misses that run's start as if it had subscribed just after it: the subscriber's first event
  /// is the state, already loading.
  @usableFromInline let subscriberCountHint = Atomic<Int>(0)
  /// What instruments are told of the store, when it had instruments when it was created.
  let instrumentation: StoreInstrumentation?

  /// A store's bookkeeping of its runs, observers and collection; see `StoreRunStateMachine`.
  @usableFromInline typealias Runs = StoreRunStateMachine<
    OperationTaskHandle, Task<Void, Never>, RunEffects.End
  >

  @usableFromInline
  struct Storage: Sendable {
    // NB: The fields whose layout depends on `State` (`state`, `optimistic`) come last, so that
    // the others sit at offsets known at compile time: the store's generic code then reaches them
    // without asking the runtime for `Storage<State>`'s metadata, which costs a fetch hundreds of
    // instructions a time.
    @usableFromInline var context: OperationContext {
      // NB: The run contexts are made from this context, so they go with it.
      didSet { self.runContexts.removeAll() }
    }
    /// Which runs are in flight and whose results reach the state, the invalidation, the
    /// mutations protecting the store, the number of subscribers and the collection timer.
    @usableFromInline var runs = Runs()
    @usableFromInline var subscribers = Subscribers<OperationEventHandler<State>>()
    /// Handlers told of each value the state records, without counting as subscribers; see
    /// `observeRecordedValues(_:)`.
    @usableFromInline var valueObservers = Subscribers<@Sendable (State) -> Void>()
    /// The default task names made so far, by suffix, so that a run does not build its name again.
    @usableFromInline var taskNames = [(suffix: String, name: String)]()
    /// The event sink of runs without a handler of their own, made once.
    @usableFromInline var eventSink: OperationEventSink?
    /// The contexts of runs made with the store's context and no handler, by task name suffix,
    /// made once: each such run adds only its own entry (see `makeTask`), where it added five.
    @usableFromInline var runContexts = [RunContext]()
    /// The subscriptions of the context's controllers, released (and so cancelled) with the store.
    var controllerSubscriptions = [OperationSubscription]()
    /// The type of operation that finds this store in a client; see `lookupOperationType`.
    @usableFromInline var lookupOperationType: (any Any.Type)?
    /// The run that `fetchIfNeeded(using:)` callers wait for, and how long its last successful
    /// run took; see `StoreServing`.
    var serving = StoreServing()
    @usableFromInline var state: State
    /// The value under the optimistic changes in flight, and the changes.
    var optimistic = MutationProtection<State.StateValue>()

    /// The context of runs with one task name suffix, before each run's own entry.
    @usableFromInline
    struct RunContext: Sendable {
      @usableFromInline let suffix: String
      @usableFromInline let overridesName: Bool
      @usableFromInline let context: OperationContext

      @inlinable
      init(suffix: String, overridesName: Bool, context: OperationContext) {
        self.suffix = suffix
        self.overridesName = overridesName
        self.context = context
      }
    }

    /// Whether the store can be collected once unobserved: it belongs to a client and its
    /// context has a collection delay.
    @usableFromInline var canCollect: Bool {
      self.context.collectionDelay != nil && self.context.operationClient != nil
    }
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
    self.lock = RecursiveLock(Storage(context: context, state: initialState))
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
      storage.runs.reset()
      storage.optimistic.dropChanges()
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
      ($0.state, $0.context, $0.runs.isInvalidated)
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

  /// The type of the operation that the store runs, with the modifiers its creator added.
  package var runOperationType: any Any.Type {
    self.operation.operationType
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
