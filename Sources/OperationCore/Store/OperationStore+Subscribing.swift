// NB: OperationSynchronization is imported publicly for the `@inlinable` run path; see
// `run(using:handler:)`.
public import OperationSynchronization
internal import Synchronization

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
      self.subscriberCountHint.store(storage.subscribers.count, ordering: .sequentiallyConsistent)
      let action = storage.runs.subscribed()
      guard action.isFirst else { return (id, nil) }
      self.observationResumed(action, context: context)
      return (id, (state, context, storage.runs.isInvalidated))
    }
    // NB: The run specification and the stale predicates are the user's code, so they run on
    // the snapshot after the lock is released. The run starts if the store still has a
    // subscriber (this one, or one that came meanwhile) and no other automatic run started.
    if let (state, context, isInvalidated) = snapshot,
      Self.isAutomaticRunningEnabled(in: context),
      isInvalidated || Self.isStale(state, in: context)
    {
      let automaticRun = self.lock.withLock { storage in
        guard storage.runs.mayStartAutomaticRun else {
          return nil as OperationTask<State.OperationValue, State.Failure>?
        }
        let task = self.makeTask(
          in: &storage,
          context: nil,
          handler: nil,
          name: "Task",
          overridesName: false
        )
        storage.runs.automaticRunStarted(task.handle)
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
  @inlinable @inline(__always)
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
      guard storage.subscribers.remove(id: id) else { return }
      self.subscriberCountHint.store(storage.subscribers.count, ordering: .sequentiallyConsistent)
      let action = storage.runs.unsubscribed(canCollect: storage.canCollect)
      if let task = action.cancelsRun {
        self.lock.enqueue { task.cancel() }
      }
      if let generation = action.startsCollectionTimer {
        self.startCollectionTimer(generation: generation, in: &storage)
      }
    }
  }
}

// MARK: - Notifications

extension OperationStore {
  /// Whether an event would reach anyone; when not, the store skips making and queueing it.
  @inlinable @inline(__always)
  static func hasReceivers(
    _ storage: Storage,
    runHandler: RunEventHandler?
  ) -> Bool {
    runHandler != nil || storage.subscribers.count > 0
  }

  @inlinable @inline(__always)
  func notifyStateChanged(_ storage: Storage, runHandler: RunEventHandler?) {
    guard Self.hasReceivers(storage, runHandler: runHandler) else { return }
    let state = storage.state
    let context = storage.context
    // NB: The most frequent event calls each handler directly, rather than through an event
    // closure that calls it: with 1,000 subscribers, one call fewer each is a tenth of an update.
    let handlers = storage.subscribers.handlers
    let runHandler = runHandler?.handler(of: State.self)
    self.lock.enqueue {
      for handler in handlers {
        handler.onStateChanged?(state, context)
      }
      runHandler?.onStateChanged?(state, context)
    }
  }

  @usableFromInline
  func notify(
    _ storage: Storage,
    runHandler: RunEventHandler?,
    _ event: @escaping @Sendable (OperationEventHandler<State>) -> Void
  ) {
    let handlers = storage.subscribers.handlers
    let runHandler = runHandler?.handler(of: State.self)
    self.lock.enqueue {
      for handler in handlers {
        event(handler)
      }
      if let runHandler {
        event(runHandler)
      }
    }
  }

  @usableFromInline
  func notify(
    runHandler: RunEventHandler?,
    _ event: @escaping @Sendable (OperationEventHandler<State>) -> Void
  ) {
    self.lock.withLock { storage in
      guard Self.hasReceivers(storage, runHandler: runHandler) else { return }
      self.notify(storage, runHandler: runHandler, event)
    }
  }
}
