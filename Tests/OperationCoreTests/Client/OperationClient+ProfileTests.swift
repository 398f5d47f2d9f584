import Foundation
import Operation
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `OperationClient+Profile tests` {
  @Test func `The App Profile Changes Nothing`() {
    let app = OperationClient.Profile.app
    #expect(app.storeLimits == nil)
    #expect(app.rerunsOnReconnection)
    var context = OperationContext()
    app.apply(to: &context)
    #expect(context.collectionDelay == OperationContext().collectionDelay)
    #expect(app.earlyRefresh == nil)
    #expect(context.earlyRefresh == nil)
  }

  @Test func `The Server Profile Bounds Stores, Collects By Age And Does Not Rerun`() {
    let server = OperationClient.Profile.server
    #expect(server.storeLimits?.maxStoreCount == 10_000)
    #expect(server.storeLimits?.maxByteCount == nil)
    #expect(server.storeLimits?.maxIdleAge == .seconds(300))
    #expect(!server.rerunsOnReconnection)
    var context = OperationContext()
    context.collectionDelay = .seconds(10)
    server.apply(to: &context)
    #expect(context.collectionDelay == nil)
    #expect(context.earlyRefresh?.beta == 1)
    #expect(context.earlyRefresh?.servingWindow == .seconds(30))
    let custom = OperationClient.Profile.server(
      maxStoreCount: 5,
      maxByteCount: 64,
      earlyRefresh: nil
    )
    #expect(custom.storeLimits?.maxStoreCount == 5)
    #expect(custom.storeLimits?.maxByteCount == 64)
    var own = OperationContext()
    own.earlyRefresh = EarlyRefresh(beta: 3)
    custom.apply(to: &own)
    #expect(own.earlyRefresh?.beta == 3)
  }

  @Test func `A Server Client Serves A Stale Value At Once While It Refreshes It`() async throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 0))
    var context = OperationContext()
    context.operationClock = clock
    let client = OperationClient(profile: .server, defaultContext: context)
    let steps = QuerySteps()
    let store = client.store(
      for: SteppedQuery(path: ["profile", "served"], steps: steps)
        .stale(after: .seconds(60))
        // NB: So that waiting on `states` below does not start a run of its own.
        .disableAutomaticRunning()
    )
    let first = Task { try await store.fetchIfNeeded() }
    await steps.waitUntilStarted(0)
    steps.release(0, returning: 1)
    #expect(try await first.value == 1)

    clock.advance(by: 61)
    #expect(try await store.fetchIfNeeded() == 1)
    await steps.waitUntilStarted(1)
    #expect(store.isLoading)
    steps.release(1, returning: 2)
    _ = await store.states.first { !$0.state.isLoading }
    #expect(store.currentValue == 2)
  }

  @Test
  func `A Server Client Evicts Least Recently Used Unobserved Stores And Never Observed Ones`() {
    let client = OperationClient(profile: .server(maxStoreCount: 2))
    let observed = client.store(for: ProfileQuery(id: 1).disableAutomaticRunning())
    let subscription = observed.subscribe(with: OperationEventHandler())
    let second = client.store(for: ProfileQuery(id: 2))
    let third = client.store(for: ProfileQuery(id: 3))
    _ = client.store(for: ProfileQuery(id: 2))
    let fourth = client.store(for: ProfileQuery(id: 4))

    #expect(client.store(with: observed.path) != nil)
    #expect(client.store(with: third.path) == nil)
    #expect(client.store(with: second.path) == nil)
    #expect(client.store(with: fourth.path) != nil)
    #expect(client.stores(matching: []).count == 2)
    subscription.cancel()
  }

  @Test func `A Server Client Evicts Unobserved Stores Unused For Its Idle Age`() async {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 0))
    let delayer = ManualDelayer()
    var context = OperationContext()
    context.operationClock = clock
    context.collectionDelayer = delayer
    let client = OperationClient(
      profile: .server(maxIdleAge: .seconds(30)),
      defaultContext: context
    )
    let old = client.store(for: ProfileQuery(id: 1))
    let observed = client.store(for: ProfileQuery(id: 2).disableAutomaticRunning())
    let subscription = observed.subscribe(with: OperationEventHandler())

    await delayer.waitForDelays(count: 1)
    #expect(delayer.delays == [.seconds(30)])
    clock.advance(by: 20)
    let recent = client.store(for: ProfileQuery(id: 3))
    clock.advance(by: 10)
    delayer.resumeNext()
    await delayer.waitForDelays(count: 2)

    #expect(client.store(with: old.path) == nil)
    #expect(old.isCollected)
    #expect(client.store(with: observed.path) != nil)
    #expect(client.store(with: recent.path) != nil)
    #expect(delayer.delays.last == .seconds(20))

    clock.advance(by: 20)
    delayer.resumeNext()
    await delayer.waitForDelays(count: 3)
    #expect(client.store(with: recent.path) == nil)
    #expect(client.store(with: observed.path) != nil)
    subscription.cancel()
  }
}

private struct ProfileQuery: QueryRequest, Hashable {
  let id: Int

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.id
  }
}
