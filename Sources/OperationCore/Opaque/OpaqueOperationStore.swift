/// A fully type-erased ``OperationStore``, as the client's path queries return it.
///
/// Cast ``base`` back to the typed store when you know its state type:
///
/// ```swift
/// let store = client.store(with: ["post", 1])?.base as? OperationStore<QueryState<Post, any Error>>
/// ```
@dynamicMemberLookup
public final class OpaqueOperationStore: Sendable {
  private let erased: any ErasedStore

  /// Erases a store.
  ///
  /// - Parameter base: The store to erase.
  public init(erasing base: OperationStore<some OperationState & Sendable>) {
    self.erased = base
    self.operationType = base.lookupOperationType
  }

  /// Erases a store whose lookup type the caller read already, under the store's lock.
  @usableFromInline
  package init(
    erasing base: OperationStore<some OperationState & Sendable>,
    operationType: (any Any.Type)?
  ) {
    self.erased = base
    self.operationType = operationType
  }

  /// The type of operation that finds this store in a client, as the store recorded it when
  /// erased: the type a client or `createStore` was asked for when it made the store, or the
  /// first type that found it; `nil` for a store that no operation has found yet.
  ///
  /// The store keeps the record; this copy spares every lookup the store's lock.
  package let operationType: (any Any.Type)?

  /// The typed store, when this store is found by operations of type `operation`.
  ///
  /// Comparing the recorded type costs less than casting ``base``, and the state type follows
  /// from the operation type. A store with no recorded type (one that joined a client through
  /// `withStores` without `createStore`) is found by the first type whose state it has, which
  /// it then records, as swift-operation 0.5 does.
  package func store<Operation: StatefulOperationRequest>(
    madeFor operation: Operation.Type
  ) -> OperationStore<Operation.State>? {
    if let operationType = self.operationType {
      guard operationType == Operation.self else { return nil }
      return unsafeDowncast(self.erased, to: OperationStore<Operation.State>.self)
    }
    guard let store = self.erased as? OperationStore<Operation.State> else { return nil }
    return store.recordLookupOperationType(Operation.self) == Operation.self ? store : nil
  }

  /// The type of operation that finds this store now, read from the store when this copy has
  /// none.
  package var recordedOperationType: (any Any.Type)? {
    self.operationType ?? self.erased.lookupOperationType
  }

  /// The typed store, as `any Sendable`.
  public var base: any Sendable {
    self.erased
  }

  /// The context of the store.
  public var context: OperationContext {
    get { self.erased.erasedContext }
    set { self.erased.erasedContext = newValue }
  }

  /// What instruments are told of the store.
  var instrumentation: StoreInstrumentation? {
    self.erased.instrumentation
  }

  /// Tells the instruments of the store's context about `event`.
  package func recordInstrumentEvent(_ event: OperationInstrumentEvent) {
    self.erased.recordInstrumentEvent(event)
  }

  /// Whether the store may run its operation by itself.
  public var isAutomaticRunningEnabled: Bool {
    self.erased.isAutomaticRunningEnabled
  }

  /// The current state, erased.
  public var state: OpaqueOperationState {
    OpaqueOperationState(self.erased.erasedState)
  }

  /// Reads a member of the current state.
  public subscript<NewValue: Sendable>(
    dynamicMember keyPath: KeyPath<OpaqueOperationState, NewValue>
  ) -> NewValue {
    self.state[keyPath: keyPath]
  }

  /// Runs `body` while holding the store's lock; see
  /// ``OperationStore/withExclusiveAccess(_:)``.
  ///
  /// - Parameter body: The work to do under the lock.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  public func withExclusiveAccess<T>(
    _ body: (OpaqueOperationStore) throws -> sending T
  ) rethrows -> sending T {
    try self.erased.withErasedLock { () throws -> T in try body(self) }
  }

  /// Whether this and `other` erase the same store.
  package func isSame(as other: OpaqueOperationStore) -> Bool {
    self.erased === other.erased
  }

  /// Evicts the store for a cache that bounds its stores, if it has no subscriber and no run in
  /// flight; see ``OperationStore/evictIfUnobserved(removingFromCache:)``.
  package func evictIfUnobserved(removingFromCache removeFromCache: () -> Bool) -> Bool {
    self.erased.evictIfUnobserved(removingFromCache: removeFromCache)
  }

  /// Calls `handler` with the current value each time the store records a value; see
  /// ``OperationStore/observeRecordedValues(_:)``.
  package func observeRecordedValues(
    _ handler: @escaping @Sendable (any Sendable) -> Void
  ) -> OperationSubscription {
    self.erased.erasedObserveRecordedValues(handler)
  }

  /// The current value, erased.
  public var currentValue: any Sendable {
    get { self.erased.erasedState.currentValue }
    @available(*, unavailable, message: "Call `uncheckedSetCurrentValue` instead.")
    set { self.uncheckedSetCurrentValue(newValue) }
  }

  /// Sets the current value; traps when it is not of the store's value type.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - context: The context of the update; the store's context by default.
  public func uncheckedSetCurrentValue(
    _ value: any Sendable,
    using context: OperationContext? = nil
  ) {
    self.uncheckedSetResult(to: .success(value), using: context)
  }

  /// Sets a result; traps when it is not of the store's types.
  ///
  /// - Parameters:
  ///   - result: The value or error.
  ///   - context: The context of the update; the store's context by default.
  public func uncheckedSetResult(
    to result: Result<any Sendable, any Error>,
    using context: OperationContext? = nil
  ) {
    self.erased.uncheckedSetResult(to: result, using: context)
  }

  /// Restores the initial state; see ``OperationStore/resetState(using:)``.
  ///
  /// - Parameter context: The context of the reset; the store's context by default.
  public func resetState(using context: OperationContext? = nil) {
    self.erased.resetState(using: context)
  }

  /// Whether the store's value is stale.
  public var isStale: Bool {
    self.erased.isStale
  }

  /// Runs the operation and waits for its value.
  ///
  /// - Parameters:
  ///   - context: The context of the run; the store's context by default.
  ///   - handler: Receives the events of this run only.
  /// - Returns: The value, erased.
  /// - Throws: The error of the run.
  @discardableResult
  public func run(
    using context: OperationContext? = nil,
    handler: OpaqueOperationEventHandler = OpaqueOperationEventHandler()
  ) async throws -> any Sendable {
    try await self.erased.erasedRun(using: context, handler: handler)
  }

  /// Creates a run without starting it.
  ///
  /// - Parameter context: The context of the run; the store's context by default.
  /// - Returns: The task of the run, erased.
  @discardableResult
  public func runTask(using context: OperationContext? = nil) -> OperationTask<
    any Sendable, any Error
  > {
    self.erased.erasedRunTask(using: context)
  }

  /// The number of subscribers.
  public var subscriberCount: Int {
    self.erased.subscriberCount
  }

  /// Subscribes to the store's events.
  ///
  /// - Parameter handler: The callbacks.
  /// - Returns: A subscription that ends when cancelled or released.
  public func subscribe(with handler: OpaqueOperationEventHandler) -> OperationSubscription {
    self.erased.erasedSubscribe(with: handler)
  }
}

extension OpaqueOperationStore {
  /// Whether the erased store keeps a paginated state.
  package var isPaginated: Bool {
    self.erased.isPaginated
  }

  /// Whether the erased store runs a mutation, which invalidation never reruns.
  package var isMutation: Bool {
    self.erased.isMutation
  }
}

// MARK: - Invalidation, cancellation, collection

extension OpaqueOperationStore {
  /// Whether the store was invalidated and no run that started since has succeeded; see
  /// ``OperationStore/isInvalidated``.
  public var isInvalidated: Bool {
    self.erased.isInvalidated
  }

  /// Marks the value stale; see ``OperationStore/invalidate()``.
  public func invalidate() {
    self.erased.invalidate()
  }

  /// Marks the value stale and starts a run that supersedes the runs in flight; see
  /// ``OperationStore/invalidateAndRerun()``.
  ///
  /// - Returns: The task of the rerun, erased.
  @discardableResult
  public func invalidateAndRerun() -> OperationTask<any Sendable, any Error> {
    self.erased.erasedInvalidateAndRerun()
  }

  /// Cancels every run that has not finished; see ``OperationStore/cancelRuns()``.
  ///
  /// - Returns: The number of runs cancelled.
  @discardableResult
  public func cancelRuns() -> Int {
    self.erased.cancelRuns()
  }

  /// The number of runs created and not yet finished.
  public var runsInFlightCount: Int {
    self.erased.runsInFlightCount
  }

  /// Protects the store from older data while a mutation runs; see
  /// ``OperationStore/applyOptimisticUpdate(_:)``.
  package func beginProtection() -> OptimisticUpdate {
    self.erased.erasedBeginProtection()
  }

  /// A `Codable` picture of the store; see ``OperationClient/snapshot(matching:)``.
  public var snapshot: OperationStoreSnapshot {
    self.erased.snapshot
  }

  /// Whether the store's client collected it; see ``OperationStore/isCollected``.
  public var isCollected: Bool {
    self.erased.isCollected
  }
}

extension OpaqueOperationStore: OperationPathable {
  /// The path of the erased store.
  public var path: OperationPath {
    self.erased.path
  }
}

// MARK: - ErasedStore

private protocol ErasedStore: AnyObject, Sendable {
  var path: OperationPath { get }
  var lookupOperationType: (any Any.Type)? { get }
  var erasedContext: OperationContext { get set }
  var erasedState: any OperationState & Sendable { get }
  var isAutomaticRunningEnabled: Bool { get }
  var isStale: Bool { get }
  var subscriberCount: Int { get }
  var isPaginated: Bool { get }
  var isMutation: Bool { get }
  var isInvalidated: Bool { get }
  var isCollected: Bool { get }
  var runsInFlightCount: Int { get }
  func recordInstrumentEvent(_ event: OperationInstrumentEvent)
  var instrumentation: StoreInstrumentation? { get }
  func invalidate()
  func erasedInvalidateAndRerun() -> OperationTask<any Sendable, any Error>
  func cancelRuns() -> Int
  func erasedBeginProtection() -> OptimisticUpdate
  var snapshot: OperationStoreSnapshot { get }
  func withErasedLock<T>(_ body: () throws -> sending T) rethrows -> sending T
  func uncheckedSetResult(
    to result: Result<any Sendable, any Error>,
    using context: OperationContext?
  )
  func resetState(using context: OperationContext?)
  func erasedRun(using context: OperationContext?, handler: OpaqueOperationEventHandler)
    async throws
    -> any Sendable
  func erasedRunTask(using context: OperationContext?) -> OperationTask<any Sendable, any Error>
  func erasedSubscribe(with handler: OpaqueOperationEventHandler) -> OperationSubscription
  func evictIfUnobserved(removingFromCache removeFromCache: () -> Bool) -> Bool
  func erasedObserveRecordedValues(
    _ handler: @escaping @Sendable (any Sendable) -> Void
  ) -> OperationSubscription
}

extension OperationStore: ErasedStore {
  fileprivate var erasedContext: OperationContext {
    get { self.context }
    set { self.context = newValue }
  }

  fileprivate var erasedState: any OperationState & Sendable {
    self.state
  }

  fileprivate func withErasedLock<T>(_ body: () throws -> sending T) rethrows -> sending T {
    try self.withExclusiveAccess { _ throws -> T in try body() }
  }

  fileprivate func uncheckedSetResult(
    to result: Result<any Sendable, any Error>,
    using context: OperationContext?
  ) {
    self.setResult(
      to: result.map { $0 as! State.StateValue }.mapError { $0 as! State.Failure },
      using: context
    )
  }

  fileprivate func erasedRun(
    using context: OperationContext?,
    handler: OpaqueOperationEventHandler
  ) async throws -> any Sendable {
    try await self.run(using: context, handler: handler.casted(to: State.self))
  }

  fileprivate func erasedRunTask(
    using context: OperationContext?
  ) -> OperationTask<any Sendable, any Error> {
    self.runTask(using: context).map { $0 as any Sendable }.mapError { $0 as any Error }
  }

  fileprivate func erasedBeginProtection() -> OptimisticUpdate {
    self.beginProtection()
  }

  fileprivate var isMutation: Bool {
    self.isMutationStore
  }

  fileprivate func erasedInvalidateAndRerun() -> OperationTask<any Sendable, any Error> {
    self.invalidateAndRerun().map { $0 as any Sendable }.mapError { $0 as any Error }
  }

  fileprivate func erasedSubscribe(with handler: OpaqueOperationEventHandler)
    -> OperationSubscription
  {
    self.subscribe(with: handler.casted(to: State.self))
  }

  fileprivate func erasedObserveRecordedValues(
    _ handler: @escaping @Sendable (any Sendable) -> Void
  ) -> OperationSubscription {
    self.observeRecordedValues { state in handler(state.currentValue) }
  }
}
