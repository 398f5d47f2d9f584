import Foundation
import Operation
@_spi(Warnings) import OperationCore
import OperationSynchronization
import Testing

// NB: Every declaration in this file spells the public API the way code written for
// swift-operation 0.5 spells it: explicit modifier struct names in return types, argument labels,
// default arguments and static factories. A rename or a signature change that would break such
// code makes this file fail to compile.

// MARK: - Modifier return types

extension StatefulOperationRequest {
  fileprivate func compatAutomaticRunning() -> ModifiedOperation<
    Self, _EnableAutomaticFetchingModifier<Self, AlwaysRunSpecification>
  > {
    self.enableAutomaticRunning(onlyWhen: .always(true))
  }

  fileprivate func compatDisabledAutomaticRunning() -> ModifiedOperation<
    Self, _EnableAutomaticFetchingModifier<Self, AlwaysRunSpecification>
  > {
    self.disableAutomaticRunning()
  }

  fileprivate func compatRerun<Specification: OperationRunSpecification & Sendable>(
    on specification: Specification
  ) -> ControlledOperation<Self, _RerunOnChangeController<State, Specification>> {
    self.rerunOnChange(of: specification)
  }

  fileprivate func compatHandleEvents() -> ModifiedOperation<Self, _HandleEventsModifier<Self>> {
    self.handleEvents(with: OperationEventHandler())
  }
}

extension StatefulOperationRequest where Self: SendableMetatype, State: SendableMetatype {
  fileprivate func compatStaleWhen() -> ModifiedOperation<Self, _StaleWhenModifier<Self>> {
    self.staleWhen { _, _ in true }
  }

  fileprivate func compatStaleWhenSatisfying() -> ModifiedOperation<
    Self, _StaleWhenModifier<Self>
  > {
    self.staleWhen(satisfying: .always(false))
  }

  fileprivate func compatStaleAfter() -> ModifiedOperation<Self, _StaleWhenModifier<Self>> {
    self.stale(after: .seconds(5))
  }
}

extension StatefulOperationRequest
where Self: SendableMetatype, State: SendableMetatype, State.StateValue == Value? {
  fileprivate func compatStaleWhenNoValue() -> ModifiedOperation<Self, _StaleWhenModifier<Self>> {
    self.staleWhenNoValue()
  }
}

extension OperationRequest {
  fileprivate func compatTaskConfiguration() -> ModifiedOperation<
    Self, _OperationTaskConfigurationModifier<Self>
  > {
    self.taskConfiguration(OperationTaskConfiguration(name: "Compat"))
  }

  fileprivate func compatEditedTaskConfiguration() -> ModifiedOperation<
    Self, _OperationTaskConfigurationModifier<Self>
  > {
    self.taskConfiguration { $0.name = "Edited" }
  }

  fileprivate func compatClock(
    _ date: Date
  ) -> ModifiedOperation<Self, _OperationClockModifier<Self, TimeFreezeClock>> {
    self.clock(.timeFreeze(date))
  }

  fileprivate func compatDelayer() -> ModifiedOperation<Self, _DelayerModifier<Self, NoDelayer>> {
    self.delayer(.noDelay)
  }

  fileprivate func compatBackoff() -> ModifiedOperation<
    Self, _OperationBackoffFunctionModifier<Self>
  > {
    self.backoff(.constant(.seconds(2)))
  }

  fileprivate func compatRetry() -> ModifiedOperation<Self, _RetryModifier<Self>> {
    self.retry(limit: 2)
  }

  fileprivate func compatCompletelyOffline() -> ModifiedOperation<
    Self, _CompletelyOfflineModifier<Self>
  > {
    self.completelyOffline()
  }

  fileprivate func compatSatisfiedConnectionStatus() -> ModifiedOperation<
    Self, _SatisfiedConnectionStatusModifier<Self>
  > {
    self.satisfiedConnectionStatus(.requiresConnection)
  }

  fileprivate func compatDisableApplicationActiveRerunning() -> ModifiedOperation<
    Self, _DisableApplicationActiveReRunningModifier<Self>
  > {
    self.disableApplicationActiveRerunning()
  }

  fileprivate func compatEvictWhen() -> ModifiedOperation<Self, _EvictWhenPressureModifier<Self>> {
    self.evictWhen(pressure: [])
  }
}

extension OperationRequest where Value: Sendable {
  fileprivate func compatDeduplicated() -> ModifiedOperation<Self, _DeduplicationModifier<Self>> {
    self.deduplicated()
  }
}

extension MutationRequest {
  fileprivate func compatMaxHistory() -> ModifiedOperation<Self, _MaxHistoryLengthModifier<Self>> {
    self.maxHistory(length: 2)
  }
}

#if SwiftOperationLogging
  extension OperationRequest {
    fileprivate func compatLogDuration() -> ModifiedOperation<
      Self, _DurationLoggingModifier<Self>
    > {
      self.logDuration()
    }
  }
#endif

// MARK: - Conformances written as upstream writes them

extension OperationContext {
  fileprivate var compatEntry: String {
    get { self[CompatEntryKey.self] }
    set { self[CompatEntryKey.self] = newValue }
  }

  private struct CompatEntryKey: Key {
    static let defaultValue = "compat"
  }
}

private struct CompatPathQuery: QueryRequest {
  let path: OperationPath

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    1
  }
}

private struct CompatController<State: OperationState & Sendable>: OperationController {
  func control(with controls: OperationControls<State>) -> OperationSubscription {
    .empty
  }
}

private struct CompatStoreCreator: OperationClient.StoreCreator, Sendable {
  func store<Operation: StatefulOperationRequest>(
    for operation: sending Operation,
    in context: OperationContext,
    with initialState: Operation.State
  ) -> OperationStore<Operation.State> {
    .detached(operation: operation, initialState: initialState, initialContext: context)
  }
}

// NB: Upstream's own `DefaultStoreCreator` spells the witness with `& Sendable` and no `sending`.
private struct CompatSendableStoreCreator: OperationClient.StoreCreator, Sendable {
  func store<Operation: StatefulOperationRequest & Sendable>(
    for operation: Operation,
    in context: OperationContext,
    with initialState: Operation.State
  ) -> OperationStore<Operation.State> {
    .detached(operation: operation, initialState: initialState, initialContext: context)
  }
}

private struct CompatActivityObserver: ApplicationActivityObserver {
  func subscribe(_ handler: @escaping @Sendable (Bool) -> Void) -> OperationSubscription {
    handler(true)
    return .empty
  }
}

private final class CompatTaskStarter: Sendable {
  let name = "Compat Task"

  func start() -> Task<String, Never> {
    // NB: `Task(configuration:)` captures `self` implicitly, like `Task.init` does.
    Task(configuration: OperationTaskConfiguration(name: self.name)) { name }
  }
}

// MARK: - Tests

@Suite struct `Upstream source compatibility tests` {
  @Test func `Context Modifiers Keep Their Upstream Type Names`() {
    let date = Date(timeIntervalSince1970: 1000)
    let runner = OperationRunner(
      operation: TestQuery()
        .compatTaskConfiguration()
        .compatClock(date)
        .compatDelayer()
        .compatBackoff()
        .compatRetry()
        .compatSatisfiedConnectionStatus()
        .compatCompletelyOffline()
        .compatDisableApplicationActiveRerunning()
        .compatEvictWhen()
        .compatDisabledAutomaticRunning()
    )
    let context = runner.context
    #expect(context.operationTaskConfiguration.name == "Compat")
    #expect(context.operationClock.now() == date)
    #expect(context.operationDelayer is NoDelayer)
    #expect(context.operationBackoffFunction(1) == .seconds(2))
    #expect(context.operationMaxRetries == 2)
    #expect(context.satisfiedConnectionStatus == .requiresConnection)
    #expect(!context.isApplicationActiveRerunningEnabled)
    #expect(context.evictableMemoryPressure == [])
    #expect(!context.automaticRunningSpecification.isSatisfied(in: context))
  }

  @Test func `Stateful Modifiers Keep Their Upstream Type Names`() async throws {
    let query = TestQuery()
      .compatEditedTaskConfiguration()
      .compatStaleWhen()
      .compatStaleWhenSatisfying()
      .compatStaleAfter()
      .compatStaleWhenNoValue()
      .compatHandleEvents()
      .compatDeduplicated()
      .compatRerun(on: AlwaysRunSpecification(isTrue: false))
      .compatAutomaticRunning()
    let store = OperationStore.detached(query: query, initialValue: nil)
    #expect(store.context.operationTaskConfiguration.name == "Edited")
    #expect(store.isAutomaticRunningEnabled)
    #expect(store.isStale)
    #expect(try await store.fetch() == 1)
  }

  @Test func `Max History Keeps Its Upstream Type Name`() {
    let runner = OperationRunner(operation: EchoMutation().compatMaxHistory())
    #expect(runner.context.maxHistoryLength == 2)
  }

  @Test func `Static Factories Use Upstream Names`() {
    let date = Date(timeIntervalSince1970: 50)
    let systemTime: SystemTimeClock = .systemTime
    let frozen: TimeFreezeClock = .timeFreeze(date)
    let frozenNow: TimeFreezeClock = .timeFreeze
    let custom: CustomOperationClock = .custom { date }
    #expect(frozen.now() == date)
    #expect(custom.frozen().now() == date)
    #expect(TimeFreezeClock(date: date).now() == date)
    #expect(CustomOperationClock { date }.now() == date)
    _ = (systemTime, SystemTimeClock(), frozenNow)

    let taskSleep: TaskSleepDelayer = .taskSleep
    let noDelay: NoDelayer = .noDelay
    let clockDelayer: ClockDelayer<ContinuousClock> = .clock(ContinuousClock())
    let erased = AnySendableDelayer(ClockDelayer(ContinuousClock()))
    #expect(erased.base is ClockDelayer<ContinuousClock>)
    _ = (taskSleep, noDelay, clockDelayer, TaskSleepDelayer(), NoDelayer())

    let always: AlwaysRunSpecification = .always(true)
    let observer = MockNetworkObserver(initialStatus: .disconnected)
    let connected: NetworkConnectionRunSpecification<MockNetworkObserver> = .connected(
      to: observer
    )
    let active: ApplicationIsActiveRunSpecification = .applicationIsActive(
      observer: CompatActivityObserver()
    )
    let not: NotRunSpecification<AlwaysRunSpecification> = !always
    let and:
      BinaryOperatorRunSpecification<
        AlwaysRunSpecification, NetworkConnectionRunSpecification<MockNetworkObserver>,
        _AndRunSpecificationOperator
      > = always && connected
    let or:
      BinaryOperatorRunSpecification<
        NotRunSpecification<AlwaysRunSpecification>, ApplicationIsActiveRunSpecification,
        _OrRunSpecificationOperator
      > = not || active
    let context = OperationContext()
    #expect(!and.isSatisfied(in: context))
    #expect(or.isSatisfied(in: context))
    #expect(AnySendableRunSpecification(always).isSatisfied(in: context))
    #expect(AlwaysRunSpecification(isTrue: false).isSatisfied(in: context) == false)
  }

  @Test func `Observers Can Be Type Erased As Upstream Does`() {
    let activity = AnyApplicationActivityObserver(CompatActivityObserver())
    let sendableActivity = AnySendableApplicationActivityObserver(
      ManualApplicationActivityObserver()
    )
    let network = AnySendableNetworkObserver(MockNetworkObserver(initialStatus: .disconnected))
    let isActive = Lock([Bool]())
    _ = activity.subscribe { value in isActive.withLock { $0.append(value) } }
    #expect(isActive.withLock { $0 } == [true])
    #expect(sendableActivity.base is ManualApplicationActivityObserver)
    #expect(network.currentStatus == .disconnected)
  }

  @Test func `Backoff Functions Expose Their Raw Description`() {
    let backoff = OperationBackoffFunction("Half") { _ in .milliseconds(500) }
    #expect(backoff.rawDescription == "Half")
    #expect(OperationBackoffFunction.noBackoff.rawDescription == "No Backoff")
    #expect(OperationBackoffFunction.exponential(.seconds(1)).jittered()(0) == .zero)
    #expect(OperationBackoffFunction { _ in .seconds(1) }(3) == .seconds(1))
  }

  @Test func `Result Update Reasons Can Be Switched Over Exhaustively`() {
    func name(of reason: OperationResultUpdateReason) -> String {
      switch reason {
      case .yieldedResult: "yielded"
      case .returnedFinalResult: "returned"
      }
    }
    #expect(name(of: .yieldedResult) == "yielded")
    #expect(name(of: .returnedFinalResult) == "returned")
  }

  @Test func `Subscriptions Combine Any Collection`() {
    let cancelled = Lock(0)
    let subscriptions: Set<OperationSubscription> = [
      OperationSubscription { cancelled.withLock { $0 += 1 } },
      OperationSubscription { cancelled.withLock { $0 += 1 } },
    ]
    let combined = OperationSubscription.combined(subscriptions)
    let variadic = OperationSubscription.combined(.empty, combined)
    variadic.cancel()
    #expect(cancelled.withLock { $0 } == 2)
  }

  @Test func `Warnings Can Be Written With Interpolation`() {
    let value = 3
    let warning: OperationWarning = "Got \(value)."
    #expect(warning.message == "Got 3.")
  }

  @Test func `Memory Pressure Raw Values Are Ints`() {
    let rawValue: Int = MemoryPressure.warning.rawValue
    #expect(MemoryPressure(rawValue: rawValue) == .warning)
  }

  @Test func `Operation Tasks Are Created With Upstream Initializers`() async throws {
    let throwing = OperationTask<Int, any Error>(context: OperationContext()) { _, _ in 1 }
    let nonThrowing = OperationTask<Int, Never>(context: OperationContext()) { _, _ in 2 }
    #expect(try await throwing.runIfNeeded() == 1)
    #expect(await nonThrowing.runIfNeeded() == 2)
  }

  @Test func `Task Configuration Tasks Capture Self Implicitly`() async {
    #expect(await CompatTaskStarter().start().value == "Compat Task")
  }

  @Test func `Typealiases Match Upstream`() {
    let pages: PagesFor<TestPaginated> = [Page(id: 1, value: "a")]
    let samePages: Pages<Int, String> = pages
    let defaulted: TestQuery.Default = TestQuery().defaultValue(3)
    let effect: QueryState<Int, any Error>.ResetEffect = OperationStateResetEffect(
      tasksCancellable: .empty
    )
    #expect(samePages.count == 1)
    #expect(defaulted.defaultValue == 3)
    _ = effect
  }

  @Test func `Store Creators Are Written As Upstream Writes Them`() {
    let client = OperationClient(storeCreator: CompatStoreCreator())
    let store = client.store(for: TestQuery())
    #expect(store.currentValue == nil)
    let sendableClient = OperationClient(storeCreator: CompatSendableStoreCreator())
    #expect(sendableClient.store(for: TestQuery(), initialValue: 4).currentValue == 4)
    let defaults: OperationClient.DefaultStoreCreator = .default(
      retryLimit: 0,
      backoff: .noBackoff,
      delayer: NoDelayer(),
      automaticRunningSpecification: AlwaysRunSpecification(isTrue: false),
      networkObserver: nil,
      activityObserver: nil
    )
    let testing: OperationClient.DefaultStoreCreator = .defaultTesting
    _ = (OperationClient(storeCreator: defaults), OperationClient(storeCreator: testing))
  }

  @Test func `Context Entries Use Upstream Names`() {
    var context = OperationContext()
    context.operationResultUpdateReason = .yieldedResult
    context.operationRetryIndex = 0
    context.operationMaxRetries = 1
    context.operationBackoffFunction = .linear(.seconds(1))
    context.operationDelayer = NoDelayer()
    context.operationClock = SystemTimeClock()
    context.operationTaskConfiguration.priority = .low
    context.operationRunningTaskIdentifier = nil
    context.operationControllers = []
    context.automaticRunningSpecification = AlwaysRunSpecification(isTrue: true)
    context.isApplicationActiveRerunningEnabled = false
    context.satisfiedConnectionStatus = .disconnected
    context.evictableMemoryPressure = .all
    context.operationClient = nil
    context.runningOperationStore = nil
    #expect(context.isLastRetryAttempt)
    #expect(context.isLastRunAttempt)
    #expect(!context.isFirstRunAttempt)
    #expect(context.isFirstRetryAttempt)
  }

  @Test func `Clients And Stores Are Used As Upstream Uses Them`() async throws {
    let client = OperationClient()
    let query = TestQuery()
    let store: OperationStore<QueryState<Int, any Error>> = client.store(for: query)
    #expect(client.store(for: query) === store)
    #expect(try await store.fetch(handler: QueryEventHandler(onFetchingStarted: { _ in })) == 1)
    let task = store.runTask()
    #expect(task.configuration.name == "OperationStore<QueryState<Int, Error>> Task")
    #expect(try await task.runIfNeeded() == 1)
    let detached = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let subscription = detached.subscribe(with: QueryEventHandler { _, _ in })
    subscription.cancel()
    let handler = OperationEventHandler<QueryState<Int, any Error>> { _, _ in
    } onRunStarted: { _ in
    } onRunEnded: { _ in
    } onResultReceived: { _, _ in
    }
    #expect(try await store.run(handler: handler) == 1)
    store.withExclusiveAccess { $0.currentValue = 5 }
    store.setResult(to: .success(6))
    #expect(store.state.currentValue == 6)
    #expect(store.status.isSuccessful)

    let opaque: OpaqueOperationStore? = client.store(with: query.path)
    opaque?.uncheckedSetCurrentValue(7)
    opaque?.uncheckedSetResult(to: .success(8))
    #expect(client.stores(matching: query.path)[query.path]?.currentValue as? Int == 8)
    #expect(client.stores(matching: [], of: QueryState<Int, any Error>.self).count == 1)
    let removed = Lock(0)
    let clientSubscription = client.subscribe(state: QueryState<Int, any Error>.self) { change in
      _ = change.storesAdded
    }
    let opaqueSubscription = client.subscribe { change in
      removed.withLock { $0 += change.storesRemoved.count }
    }
    let count = client.withStores(matching: [], of: TestQuery.Default.State.self) {
      entries,
      createStore in
      entries.update(createStore(for: CompatPathQuery(path: ["compat"]).defaultValue(2)))
      return entries.count
    }
    #expect(count == 1)
    client.withStores(matching: []) { entries, createStore in
      entries.update(OpaqueOperationStore(erasing: createStore(for: TestQuery(), initialValue: 3)))
      entries.removeValue(forPath: ["compat"])
    }
    client.clearStore(with: query.path)
    client.clearStores(matching: [1])
    client.clearStores()
    clientSubscription.cancel()
    opaqueSubscription.cancel()
    #expect(client.stores(matching: []).isEmpty)
    #expect(removed.withLock { $0 } > 0)

    var context = OperationContext()
    context.compatEntry = "edited"
    #expect(context.compatEntry == "edited")
    #expect(OperationContext().compatEntry == "compat")
    let controlled: ControlledOperation<TestQuery, CompatController<TestQuery.State>> =
      TestQuery().controlled(by: CompatController())
    #expect(OperationRunner(operation: controlled).context.operationControllers.count == 1)
  }

  @Test func `Mutation And Paginated Stores Are Used As Upstream Uses Them`() async throws {
    let mutations = OperationStore.detached(mutation: EchoMutation())
    let events = Lock([String]())
    let value = try await mutations.mutate(
      with: "a",
      handler: MutationEventHandler(
        onStateChanged: { _, _ in },
        onMutatingStarted: { arguments, _ in events.withLock { $0.append(arguments) } },
        onMutationResultReceived: { _, _, _ in },
        onMutatingEnded: { _, _ in }
      )
    )
    #expect(value == "a")
    #expect(try await mutations.retryLatest() == "a")
    #expect(events.withLock { $0 } == ["a"])
    let void = OperationStore.detached(mutation: CountingVoidMutation())
    #expect(await void.mutate() == 1)

    let pages = OperationStore.detached(query: TestPaginated([0: "a", 1: "b"]))
    let page: Page<Int, String>? = try await pages.fetchNextPage(
      handler: PaginatedEventHandler(
        onStateChanged: { _, _ in },
        onFetchingStarted: { _ in },
        onPageFetchingStarted: { _, _ in },
        onPageResultReceived: { _, _, _ in },
        onResultReceived: { _, _ in },
        onPageFetchingEnded: { _, _ in },
        onFetchingEnded: { _ in }
      )
    )
    #expect(page?.value == "a")
    let all: Pages<Int, String> = try await pages.refetchAllPages()
    #expect(all.count == 1)
    #expect(try await pages.fetchPreviousPage() == nil)
    #expect(pages.hasNextPage)
  }

  @Test func `Paths Are Built As Upstream Builds Them`() {
    var path = OperationPath(["posts", 1])
    path.append("comments")
    let single = OperationPath("posts")
    #expect(single.isPrefix(of: path))
    #expect(path.appending(OperationPath(element: .init(2))).count == 4)
    #expect(OperationPath(elements: [OperationPath.Element("posts")]) == single)
    let index: Set<OperationPathableCollection<OpaqueOperationStore>.Index> = []
    #expect(index.isEmpty)
  }
}
