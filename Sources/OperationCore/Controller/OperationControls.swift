/// What an ``OperationController`` can do with one store.
///
/// The controls hold the store weakly. After the store is deallocated every member reports
/// `OperationWarning.controllerDeallocatedStoreAccess(stateType:)` and falls back to a neutral
/// value (the state the store started with, no subscribers, no rerun); cancel your work in the
/// subscription that ``OperationController/control(with:)`` returns to avoid that.
public struct OperationControls<State: OperationState & Sendable>: Sendable {
  private weak let weakStore: OperationStore<State>?
  private let defaultContext: OperationContext
  private let initialState: State

  init(store: OperationStore<State>, defaultContext: OperationContext, initialState: State) {
    self.weakStore = store
    self.defaultContext = defaultContext
    self.initialState = initialState
  }

  private var store: OperationStore<State>? {
    guard let store = self.weakStore else {
      reportWarning(.controllerDeallocatedStoreAccess(stateType: State.self))
      return nil
    }
    return store
  }
}

extension OperationControls {
  /// The store's path.
  public var path: OperationPath {
    self.store?.path ?? OperationPath()
  }

  /// The store's context.
  public var context: OperationContext {
    self.store?.context ?? self.defaultContext
  }

  /// The store's state.
  public var state: State {
    self.store?.state ?? self.initialState
  }

  /// Whether the store's value is stale.
  public var isStale: Bool {
    self.store?.isStale ?? false
  }

  /// The number of the store's subscribers.
  public var subscriberCount: Int {
    self.store?.subscriberCount ?? 0
  }

  /// Marks the store's value stale until a run that starts after this call succeeds; see
  /// ``OperationStore/invalidate()``.
  public func invalidate() {
    self.store?.invalidate()
  }

  /// The store, without a warning when it is gone; for controllers of the package that watch it.
  package var controlledStore: OperationStore<State>? {
    self.weakStore
  }

  /// Runs `body` while holding the store's lock, so that reading the state and yielding a value
  /// based on it happen as one step.
  ///
  /// ```swift
  /// controls.withExclusiveAccess { controls in
  ///   controls.yield((controls.state.currentValue ?? 0) + 1)
  /// }
  /// ```
  ///
  /// - Parameter body: The work to do under the lock.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  public func withExclusiveAccess<T>(_ body: (Self) throws -> sending T) rethrows -> sending T {
    guard let store = self.store else { return try body(self) }
    return try store.withExclusiveAccess { _ in try body(self) }
  }
}

// MARK: - Yielding

extension OperationControls {
  /// Sets the store's value or error, as a run would, and notifies its subscribers.
  ///
  /// - Parameters:
  ///   - result: The value or error.
  ///   - context: The context of the update; the store's context by default.
  public func yield(
    with result: Result<State.StateValue, State.Failure>,
    using context: OperationContext? = nil
  ) {
    self.store?.setResult(to: result, using: context)
  }

  /// Sets the store's value.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - context: The context of the update; the store's context by default.
  public func yield(_ value: State.StateValue, using context: OperationContext? = nil) {
    self.yield(with: .success(value), using: context)
  }

  /// Sets the store's error.
  ///
  /// - Parameters:
  ///   - error: The error.
  ///   - context: The context of the update; the store's context by default.
  public func yield(throwing error: State.Failure, using context: OperationContext? = nil) {
    self.yield(with: .failure(error), using: context)
  }

  /// Restores the store's initial state and cancels its runs in flight.
  ///
  /// - Parameter context: The context of the reset; the store's context by default.
  public func yieldResetState(using context: OperationContext? = nil) {
    self.store?.resetState(using: context)
  }
}

// MARK: - Rerunning

extension OperationControls {
  /// Whether the controls may rerun the operation: the store's automatic running is enabled.
  public var canYieldRerun: Bool {
    self.store?.isAutomaticRunningEnabled ?? false
  }

  /// Reruns the operation and waits for its value.
  ///
  /// - Parameter context: The context of the run; the store's context by default.
  /// - Returns: The value, or `nil` when automatic running is disabled.
  /// - Throws: The error of the run.
  @discardableResult
  public func yieldRerun(
    with context: OperationContext? = nil
  ) async throws(State.Failure) -> State.OperationValue? {
    try await self.yieldRerunTask(with: context)?.runIfNeeded()
  }

  /// Creates a rerun of the operation without starting it.
  ///
  /// - Parameter context: The context of the run; the store's context by default.
  /// - Returns: The task, or `nil` when automatic running is disabled.
  public func yieldRerunTask(
    with context: OperationContext? = nil
  ) -> OperationTask<State.OperationValue, State.Failure>? {
    guard let store = self.store, store.isAutomaticRunningEnabled else { return nil }
    return store.runTask(using: context)
  }
}
