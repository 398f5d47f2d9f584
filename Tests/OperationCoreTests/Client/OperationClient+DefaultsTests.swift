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

  /// A client whose default creator retries `retryLimit` times with a linear one-second backoff
  /// on `delayer`, and watches neither the network nor the application.
  private static func clientWithoutObservers(
    retryLimit: Int,
    delayer: RecordingDelayer
  ) -> OperationClient {
    OperationClient(
      storeCreator: .default(
        retryLimit: retryLimit,
        backoff: .linear(.seconds(1)),
        delayer: delayer,
        networkObserver: nil,
        activityObserver: nil
      )
    )
  }

  @Test func `The Operation's Own Modifiers Win Over The Creator's Defaults`() async {
    let clientDelayer = RecordingDelayer()
    let ownDelayer = RecordingDelayer()
    let client = Self.clientWithoutObservers(retryLimit: 3, delayer: clientDelayer)
    let query = ScriptedQuery([.failure(TestError())])
      .retry(limit: 1)
      .backoff(.constant(.seconds(7)))
      .delayer(ownDelayer)
      .disableAutomaticRunning()
    let store = client.store(for: query)

    await #expect(throws: TestError.self) { try await store.fetch() }
    #expect(store.context.operationMaxRetries == 1)
    #expect(!store.isAutomaticRunningEnabled)
    #expect(ownDelayer.delays == [.seconds(7)])
    #expect(clientDelayer.delays.isEmpty)
  }

  @Test func `The Creator's Defaults Apply Where The Operation Sets Nothing`() async {
    let delayer = RecordingDelayer()
    let client = Self.clientWithoutObservers(retryLimit: 2, delayer: delayer)
    let store = client.store(for: ScriptedQuery([.failure(TestError())]))

    await #expect(throws: TestError.self) { try await store.fetch() }
    #expect(store.context.operationMaxRetries == 2)
    #expect(store.isAutomaticRunningEnabled)
    #expect(store.context.operationControllers.count == 1)
    #expect(delayer.delays == [.seconds(1), .seconds(2)])
  }

  // MARK: - Defaults that would pass runs through

  @Test func `The Default Creator Adds Nothing Around A Deduplicated Operation That Retries`() {
    let client = Self.clientWithoutObservers(retryLimit: 3, delayer: RecordingDelayer())
    let query = TestQuery().retry(limit: 1).deduplicated()
    let store = client.store(for: query)
    #expect(ObjectIdentifier(store.runOperationType) == ObjectIdentifier(type(of: query)))
    #expect(store.context.operationMaxRetries == 1)
    #expect(store.isAutomaticRunningEnabled)
    #expect(store.context.operationControllers.count == 1)
  }

  @Test func `The Default Creator Adds Only Its Deduplication Around An Operation That Retries`() {
    let client = Self.clientWithoutObservers(retryLimit: 3, delayer: RecordingDelayer())
    let query = TestQuery().retry(limit: 1).backoff(.noBackoff)
    let store = client.store(for: query)
    #expect(
      ObjectIdentifier(store.runOperationType) == ObjectIdentifier(type(of: query.deduplicated()))
    )
    #expect(store.context.operationMaxRetries == 1)
  }

  @Test func `The Default Creator Adds Both Defaults Around An Operation That Only Deduplicates`() {
    let client = Self.clientWithoutObservers(retryLimit: 3, delayer: RecordingDelayer())
    let query = TestQuery().deduplicated()
    let store = client.store(for: query)
    #expect(
      ObjectIdentifier(store.runOperationType)
        == ObjectIdentifier(type(of: query.retry(limit: 3).deduplicated()))
    )
    #expect(store.context.operationMaxRetries == 3)
  }

  @Test func `The Default Creator Keeps Its Deduplication Around A Custom One`() {
    let client = Self.clientWithoutObservers(retryLimit: 3, delayer: RecordingDelayer())
    let query = TestQuery().retry(limit: 1).deduplicated(by: { _, _ in false })
    let store = client.store(for: query)
    #expect(
      ObjectIdentifier(store.runOperationType) == ObjectIdentifier(type(of: query.deduplicated()))
    )
  }

  @Test func `The Default Creator Adds No Retry Around A Mutation That Retries`() {
    let client = Self.clientWithoutObservers(retryLimit: 3, delayer: RecordingDelayer())
    let mutation = EchoMutation().retry(limit: 1)
    let store = client.store(for: mutation)
    #expect(ObjectIdentifier(store.runOperationType) == ObjectIdentifier(type(of: mutation)))
    #expect(store.context.operationMaxRetries == 1)
  }

  @Test func `An Operation That Retries And Deduplicates Retries As Its Own Modifiers Say`()
    async throws
  {
    let delayer = RecordingDelayer()
    let client = Self.clientWithoutObservers(retryLimit: 3, delayer: delayer)
    let query = ScriptedQuery([.failure(TestError()), .failure(TestError()), .success(5)])
      .retry(limit: 2)
      .deduplicated()
    let store = client.store(for: query)
    #expect(ObjectIdentifier(store.runOperationType) == ObjectIdentifier(type(of: query)))
    #expect(try await store.fetch() == 5)
    #expect(delayer.delays == [.seconds(1), .seconds(2)])
  }

  // MARK: - Mutations

  @Test func `The Default Creator Never Runs Mutations By Themselves`() {
    let network = MockNetworkObserver(initialStatus: .disconnected)
    let activity = ManualApplicationActivityObserver(isActive: false)
    let client = OperationClient(
      storeCreator: .default(
        retryLimit: 2,
        backoff: .noBackoff,
        delayer: NoDelayer(),
        networkObserver: network,
        activityObserver: activity
      )
    )
    let mutation = EchoMutation()
    let store = client.store(for: mutation)
    #expect(!store.isAutomaticRunningEnabled)
    #expect(store.context.operationControllers.isEmpty)
    #expect(store.context.operationMaxRetries == 2)

    let subscription = store.subscribe(with: MutationEventHandler())
    activity.send(isActive: true)
    network.send(status: .connected)
    #expect(mutation.attempts.value == 0)
    #expect(store.history.isEmpty)
    subscription.cancel()
  }

  @Test func `The Default Creator Detects Mutations With A Default Value`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let store = client.store(for: EchoMutation().defaultValue("none"))
    #expect(!store.isAutomaticRunningEnabled)
    #expect(store.context.operationControllers.isEmpty)
    let query = client.store(for: TestQuery())
    #expect(query.isAutomaticRunningEnabled)
  }

  @Test func `The Default Creator Retries Mutations With Its Backoff`() async {
    let delayer = RecordingDelayer()
    let client = OperationClient(
      storeCreator: .default(retryLimit: 2, backoff: .linear(.seconds(1)), delayer: delayer)
    )
    let mutation = EchoMutation(failingArguments: ["bad"])
    let store = client.store(for: mutation)
    await #expect(throws: TestError.self) { try await store.mutate(with: "bad") }
    #expect(mutation.attempts.value == 3)
    #expect(delayer.delays == [.seconds(1), .seconds(2)])
    #expect(store.history.count == 1)
  }

  @Test(.timeLimit(.minutes(1)))
  func `The Default Creator Does Not Deduplicate Mutations`() async throws {
    let client = OperationClient(storeCreator: .defaultTesting)
    let mutation = GatedMutation()
    let store = client.store(for: mutation)
    let first = Task { try await store.mutate(with: "first") }
    await mutation.gates.waitUntilStarted("first")

    // NB: With deduplication the second attempt would wait for the first, which is held.
    mutation.gates.release("second")
    #expect(try await store.mutate(with: "second") == "second")
    mutation.gates.release("first")
    #expect(try await first.value == "first")
    #expect(store.history.map(\.arguments) == ["first", "second"])
  }
}
