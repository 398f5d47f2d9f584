import Foundation
import Operation
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `OperationStore+Collection tests` {
  /// A client whose stores are collected after 10 seconds, on a manual clock and delayer.
  private struct Fixture {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 0))
    let delayer = ManualDelayer()
    let client: OperationClient
    let removed = Gate()
    let subscription: OperationSubscription

    init(delay: OperationDuration? = .seconds(10)) {
      var context = OperationContext()
      context.operationClock = self.clock
      context.collectionDelayer = self.delayer
      context.collectionDelay = delay
      self.client = OperationClient(defaultContext: context)
      let removed = self.removed
      self.subscription = self.client.subscribe { change in
        if !change.storesRemoved.isEmpty { removed.open() }
      }
    }

    /// Lets the pending collection delay end after the clock has moved by `seconds`.
    func elapse(_ seconds: TimeInterval, delays count: Int) async {
      await self.delayer.waitForDelays(count: count)
      self.clock.advance(by: seconds)
      self.delayer.resumeNext()
    }
  }

  @Test func `The Default Delay Is Five Minutes On Apple Platforms And Off Elsewhere`() {
    #if canImport(Darwin)
      #expect(OperationContext().collectionDelay == .seconds(300))
    #else
      #expect(OperationContext().collectionDelay == nil)
    #endif
  }

  @Test func `An Unobserved Store Leaves The Client After Its Delay`() async {
    let fixture = Fixture()
    let store = fixture.client.store(for: TestQuery())
    await fixture.elapse(10, delays: 1)
    await fixture.removed.wait()
    #expect(fixture.delayer.delays == [.seconds(10)])
    #expect(fixture.client.store(with: store.path) == nil)
    #expect(store.isCollected)
    #expect(fixture.client.store(for: TestQuery()) !== store)
  }

  @Test func `A Delay That Ends Early Waits Again For The Rest By The Clock`() async {
    let fixture = Fixture()
    let store = fixture.client.store(for: TestQuery())
    await fixture.elapse(4, delays: 1)
    await fixture.elapse(6, delays: 2)
    await fixture.removed.wait()
    #expect(fixture.delayer.delays == [.seconds(10), .seconds(6)])
    #expect(store.isCollected)
  }

  @Test func `A Subscriber Stops The Collection`() async {
    let fixture = Fixture()
    let store = fixture.client.store(for: TestQuery().staleWhen { _, _ in false })
    await fixture.delayer.waitForDelays(count: 1)
    let subscription = store.subscribe { _ in }
    #expect(fixture.delayer.pendingCount == 0)
    #expect(fixture.delayer.cancelledCount == 1)
    #expect(fixture.client.store(with: store.path) === store.erasedForTest)
    subscription.cancel()

    // NB: The last subscriber leaving starts the delay again.
    await fixture.elapse(10, delays: 2)
    await fixture.removed.wait()
    #expect(store.isCollected)
  }

  @Test func `A Store With A Run In Flight Is Not Collected Until The Run Ends`() async throws {
    let fixture = Fixture()
    let query = GatedQuery()
    let store = fixture.client.store(for: query)
    let run = Task { try await store.fetch() }
    await query.started.wait()
    await fixture.elapse(10, delays: 1)

    // NB: The ended delay found the run in flight; the run's end starts a new delay.
    query.gate.open()
    _ = try await run.value
    await fixture.elapse(10, delays: 2)
    await fixture.removed.wait()
    #expect(store.isCollected)
    #expect(fixture.delayer.delays == [.seconds(10), .seconds(10)])
  }

  @Test func `A Collected Store That Gains A Subscriber Rejoins The Client`() async {
    let fixture = Fixture()
    let store = fixture.client.store(for: TestQuery().staleWhen { _, _ in false })
    await fixture.elapse(10, delays: 1)
    await fixture.removed.wait()

    let subscription = store.subscribe { _ in }
    #expect(!store.isCollected)
    #expect(fixture.client.store(with: store.path) === store.erasedForTest)
    subscription.cancel()
  }

  @Test func `A Delay That Ends While The Clock Stands Still Ends The Wait`() async {
    let fixture = Fixture()
    let store = fixture.client.store(for: TestQuery())
    await fixture.elapse(0, delays: 1)
    await fixture.removed.wait()
    #expect(fixture.delayer.delays == [.seconds(10)])
    #expect(store.isCollected)
  }

  @Test func `A Per Operation Delay Overrides The Client's`() async {
    let fixture = Fixture()
    let store = fixture.client.store(for: TestQuery().collected(after: .seconds(2)))
    await fixture.elapse(2, delays: 1)
    await fixture.removed.wait()
    #expect(fixture.delayer.delays == [.seconds(2)])
    #expect(store.isCollected)
  }

  @Test func `Without A Delay A Store Stays`() async throws {
    let fixture = Fixture(delay: nil)
    let store = fixture.client.store(for: TestQuery())
    try await store.fetch()
    store.subscribe { _ in }.cancel()
    #expect(fixture.delayer.delays.isEmpty)
    #expect(fixture.client.store(with: store.path) === store.erasedForTest)
  }

  @Test func `A Detached Store Is Never Collected`() async throws {
    let delayer = ManualDelayer()
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    store.context.collectionDelayer = delayer
    store.context.collectionDelay = .seconds(1)
    try await store.fetch()
    store.subscribe { _ in }.cancel()
    #expect(delayer.delays.isEmpty)
  }
}

extension OperationStore {
  /// The store the client caches for this store's path, compared by identity.
  fileprivate var erasedForTest: AnyObject { self }
}

private func === (lhs: OpaqueOperationStore?, rhs: AnyObject) -> Bool {
  (lhs?.base as AnyObject?) === rhs
}
