import Operation
import OperationTestSupport
import Testing

@Suite struct `OperationClient defaults tests` {
  @Test func `The Default Creator Reruns Subscribed Stores When The Network Reconnects`() async {
    let network = MockNetworkObserver(initialStatus: .disconnected)
    let client = OperationClient(
      storeCreator: .default(
        retryLimit: 0,
        backoff: .noBackoff,
        delayer: NoDelayer(),
        networkObserver: network,
        activityObserver: nil
      )
    )
    let query = TestQuery()
    let runsEnded = AsyncStream<Void>.makeStream()
    let store = client.store(for: query)
    let subscription = store.subscribe(
      with: QueryEventHandler(onFetchingEnded: { _ in runsEnded.continuation.yield() })
    )
    var ends = runsEnded.stream.makeAsyncIterator()
    await ends.next()

    network.send(status: .connected)
    await ends.next()
    #expect(store.valueUpdateCount == 2)
    subscription.cancel()
  }

  @Test func `The Default Creator Reruns Only When Both Observers Are Satisfied`() async {
    let network = MockNetworkObserver(initialStatus: .connected)
    let activity = ManualApplicationActivityObserver(isActive: false)
    let client = OperationClient(
      storeCreator: .default(
        retryLimit: 0,
        backoff: .noBackoff,
        delayer: NoDelayer(),
        networkObserver: network,
        activityObserver: activity
      )
    )
    let runsEnded = AsyncStream<Void>.makeStream()
    let store = client.store(for: TestQuery())
    let subscription = store.subscribe(
      with: QueryEventHandler(onFetchingEnded: { _ in runsEnded.continuation.yield() })
    )
    var ends = runsEnded.stream.makeAsyncIterator()
    await ends.next()

    network.send(status: .disconnected)
    activity.send(isActive: true)
    #expect(store.activeTasks.isEmpty)
    network.send(status: .connected)
    await ends.next()
    #expect(store.valueUpdateCount == 2)
    subscription.cancel()
  }

  @Test func `The Testing Creator Adds No Retries And One Rerun Controller`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let store = client.store(for: TestQuery())
    #expect(store.context.operationMaxRetries == 0)
    #expect(store.context.operationControllers.count == 1)
    #expect(store.isAutomaticRunningEnabled)
  }
}
