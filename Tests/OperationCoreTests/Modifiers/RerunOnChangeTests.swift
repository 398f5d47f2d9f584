import OperationCore
import OperationTestSupport
import Testing

@Suite struct `RerunOnChange tests` {
  @Test func `Reruns When The Specification Becomes Satisfied`() async throws {
    let query = GatedQuery()
    let spec = ManualRunSpecification(isSatisfied: false)
    let store = OperationStore.detached(
      query: query.rerunOnChange(of: spec).enableAutomaticRunning(onlyWhen: .always(true)),
      initialValue: nil
    )
    let subscription = store.subscribe(with: OperationEventHandler())
    let automaticRun = try #require(store.activeTasks.first)
    query.gate.open()
    try await automaticRun.runIfNeeded()
    #expect(query.fetchCount.value == 1)

    spec.send(true)
    let rerun = try #require(store.activeTasks.first)
    try await rerun.runIfNeeded()
    #expect(query.fetchCount.value == 2)
    subscription.cancel()
  }

  @Test func `Becoming Unsatisfied Cancels The Rerun In Flight`() async throws {
    let query = GatedQuery()
    let isAutomatic = ManualRunSpecification(isSatisfied: false)
    let spec = ManualRunSpecification(isSatisfied: false)
    let store = OperationStore.detached(
      query: query.rerunOnChange(of: spec).enableAutomaticRunning(onlyWhen: isAutomatic),
      initialValue: nil
    )
    let subscription = store.subscribe(with: OperationEventHandler())
    #expect(store.activeTasks.isEmpty)
    isAutomatic.send(true)

    spec.send(true)
    let rerun = try #require(store.activeTasks.first)
    #expect(!rerun.isCancelled)
    spec.send(false)
    #expect(rerun.isCancelled)
    query.gate.open()
    await #expect(throws: CancellationError.self) { try await rerun.runIfNeeded() }
    subscription.cancel()
  }

  @Test(arguments: RerunCase.allCases)
  func `Does Not Rerun Unless Every Condition Holds`(rerunCase: RerunCase) async throws {
    let query = GatedQuery()
    query.gate.open()
    let spec = ManualRunSpecification(isSatisfied: rerunCase == .becomesUnsatisfied)
    let isAutomatic = ManualRunSpecification(isSatisfied: false)
    let store = OperationStore.detached(
      query: query.rerunOnChange(of: spec)
        .staleWhen { _, _ in rerunCase != .notStale }
        .enableAutomaticRunning(onlyWhen: isAutomatic),
      initialValue: nil
    )
    let subscription =
      rerunCase == .noSubscribers ? nil : store.subscribe(with: OperationEventHandler())
    isAutomatic.send(rerunCase != .automaticRunningDisabled)

    spec.send(rerunCase != .becomesUnsatisfied)
    #expect(store.activeTasks.isEmpty)
    #expect(query.fetchCount.value == 0)
    subscription?.cancel()
  }

  @Test func `A Repeated Satisfied Value Does Not Rerun Again`() async throws {
    let query = GatedQuery()
    let isAutomatic = ManualRunSpecification(isSatisfied: false)
    let spec = ManualRunSpecification(isSatisfied: false)
    let store = OperationStore.detached(
      query: query.rerunOnChange(of: spec).enableAutomaticRunning(onlyWhen: isAutomatic),
      initialValue: nil
    )
    let subscription = store.subscribe(with: OperationEventHandler())
    isAutomatic.send(true)
    spec.send(true)
    let rerun = try #require(store.activeTasks.first)
    query.gate.open()
    try await rerun.runIfNeeded()
    spec.send(true)
    #expect(store.activeTasks.isEmpty)
    #expect(query.fetchCount.value == 1)
    subscription.cancel()
  }

  @Test func `Deallocating The Store Stops Watching The Specification`() {
    let spec = ManualRunSpecification(isSatisfied: false)
    var store: OperationStore? = OperationStore.detached(
      query: TestQuery().rerunOnChange(of: spec),
      initialValue: nil
    )
    #expect(spec.subscriberCount == 1)
    _ = store
    store = nil
    #expect(spec.subscriberCount == 0)
  }

  enum RerunCase: CaseIterable, Sendable {
    case becomesUnsatisfied, noSubscribers, notStale, automaticRunningDisabled
  }
}
