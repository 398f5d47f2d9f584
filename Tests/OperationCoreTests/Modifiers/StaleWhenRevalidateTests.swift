import Foundation
import OperationCore
import OperationTestSupport
import Testing

@Suite struct `StaleWhenRevalidate tests` {
  @Test func `A Store Without Stale Modifiers Is Always Stale`() async throws {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    #expect(store.isStale)
    try await store.fetch()
    #expect(store.isStale)
  }

  @Test(arguments: [
    (false, false, false), (true, false, true), (false, true, true), (true, true, true),
  ])
  func `Stale Predicates Combine With Or`(first: Bool, second: Bool, isStale: Bool) {
    let store = OperationStore.detached(
      query: TestQuery().staleWhen { _, _ in first }.staleWhen { _, _ in second },
      initialValue: nil
    )
    #expect(store.isStale == isStale)
  }

  @Test func `Stale After A Duration Follows The Context Clock`() async throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 100))
    let store = OperationStore.detached(
      query: TestQuery().stale(after: .seconds(10)).clock(clock),
      initialValue: nil
    )
    #expect(store.isStale)
    try await store.fetch()
    #expect(!store.isStale)
    clock.advance(by: 10)
    #expect(!store.isStale)
    clock.advance(by: 1)
    #expect(store.isStale)
  }

  @Test func `Stale After A Swift Duration Matches The Operation Duration`() async throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 100))
    let store = OperationStore.detached(
      query: TestQuery().stale(after: Duration.milliseconds(500)).clock(clock),
      initialValue: nil
    )
    try await store.fetch()
    clock.advance(by: 0.4)
    #expect(!store.isStale)
    clock.advance(by: 0.2)
    #expect(store.isStale)
  }

  @Test(arguments: [true, false])
  func `Stale After Uses When No Value Before The First Value`(whenNoValue: Bool) {
    let store = OperationStore.detached(
      query: TestQuery().stale(after: .seconds(10), whenNoValue: whenNoValue),
      initialValue: nil
    )
    #expect(store.isStale == whenNoValue)
  }

  @Test func `Stale When No Value Holds Only Without A Value`() {
    let store = OperationStore.detached(query: TestQuery().staleWhenNoValue(), initialValue: nil)
    #expect(store.isStale)
    store.currentValue = 1
    #expect(!store.isStale)
  }

  @Test func `Stale While A Specification Is Satisfied`() {
    let spec = ManualRunSpecification(isSatisfied: false)
    let store = OperationStore.detached(
      query: TestQuery().staleWhen(satisfying: spec),
      initialValue: nil
    )
    #expect(!store.isStale)
    spec.send(true)
    #expect(store.isStale)
  }

  @Test func `Predicates See The Base State Of A Defaulted Store`() {
    let store = OperationStore.detached(
      query: TestQuery().staleWhen { state, _ in state.currentValue == nil }.defaultValue(5)
    )
    #expect(store.currentValue == 5)
    #expect(store.isStale)
  }

  @Test func `A Predicate For Another State Type Is Not Stale`() {
    var context = OperationContext()
    context.staleWhenRevalidateConditionForTesting(
      TestQuery().staleWhen { _, _ in true }
    )
    let store = OperationStore.detached(
      query: OtherStateQuery(),
      initialValue: nil,
      initialContext: context
    )
    #expect(!store.isStale)
  }

  @Test(arguments: [true, false])
  func `Subscribing Runs Automatically Only When Stale`(isStale: Bool) async throws {
    let query = GatedQuery()
    let store = OperationStore.detached(
      query: query.staleWhen { _, _ in isStale }.enableAutomaticRunning(onlyWhen: .always(true)),
      initialValue: nil
    )
    let subscription = store.subscribe(with: OperationEventHandler())
    #expect(store.activeTasks.count == (isStale ? 1 : 0))
    query.gate.open()
    subscription.cancel()
  }

  @Test func `Stale After Records The Shortest Duration As The Freshness Lifetime`() {
    var context = OperationContext()
    TestQuery().stale(after: .seconds(60)).stale(after: Duration.seconds(20))
      .stale(after: .seconds(45)).setup(context: &context)
    #expect(context.freshnessLifetime == .seconds(20))
  }

  @Test func `Stale Predicates Without A Duration Record No Freshness Lifetime`() {
    var context = OperationContext()
    TestQuery().staleWhen { _, _ in true }.staleWhenNoValue().setup(context: &context)
    #expect(context.freshnessLifetime == nil)
  }
}

extension OperationContext {
  /// Runs the setup of `operation`, so that its stale predicates join this context.
  fileprivate mutating func staleWhenRevalidateConditionForTesting(
    _ operation: some StatefulOperationRequest
  ) {
    operation.setup(context: &self)
  }
}

private struct OtherStateQuery: QueryRequest, Hashable {
  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<String, any Error>
  ) async throws -> String {
    "other"
  }
}
