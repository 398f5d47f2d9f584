import Operation
@_spi(Warnings) import OperationCore
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `OperationClient tests` {
  @Test func `Returns The Same Store For The Same Path`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let first = client.store(for: PathQuery(value: 1, path: ["a", 1]))
    let second = client.store(for: PathQuery(value: 2, path: ["a", 1]))
    #expect(first === second)
  }

  @Test func `Two Operation Types On One Path Report A Warning And Get An Uncached Store`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let cached = client.store(for: PathQuery(value: 1, path: ["shared"]))
    withKnownIssue {
      let other = client.store(for: OtherPathQuery(path: ["shared"]))
      #expect(client.store(with: ["shared"])?.base as AnyObject === cached)
      #expect(other.path == ["shared"])
    } matching: { issue in
      issue.comments.contains(
        Comment(
          rawValue: OperationWarning.duplicatePath(
            expectedType: PathQuery.self,
            foundType: OtherPathQuery.self
          ).message
        )
      )
    }
  }

  @Test func `Stores Matching A Prefix Returns Only Those Stores`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    _ = client.store(for: PathQuery(value: 1, path: ["user", 1]))
    _ = client.store(for: PathQuery(value: 2, path: ["user", 2]))
    _ = client.store(for: PathQuery(value: 3, path: ["post", 1]))
    #expect(client.stores(matching: ["user"]).paths == [["user", 1], ["user", 2]])
    #expect(client.stores(matching: []).count == 3)
    #expect(client.stores(matching: ["user", 1], of: QueryState<Int, any Error>.self).count == 1)
    #expect(client.stores(matching: ["user"], of: QueryState<String, any Error>.self).isEmpty)
  }

  @Test func `Clearing Stores Removes Them By Prefix And By Exact Path`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    _ = client.store(for: PathQuery(value: 1, path: ["user", 1]))
    _ = client.store(for: PathQuery(value: 2, path: ["user", 2]))
    _ = client.store(for: PathQuery(value: 3, path: ["post", 1]))
    client.clearStores(matching: ["user"])
    #expect(client.stores(matching: []).paths == [["post", 1]])
    #expect(client.clearStore(with: ["post", 1]) != nil)
    #expect(client.clearStore(with: ["post", 1]) == nil)
    #expect(client.stores(matching: []).isEmpty)
  }

  @Test func `Stores Know Their Client Weakly Unless Set By Hand`() {
    var client: OperationClient? = OperationClient(storeCreator: .defaultTesting)
    let store = client!.store(for: PathQuery(value: 1, path: ["a"]))
    #expect(store.context.operationClient === client)
    client = nil
    #expect(store.context.operationClient == nil)

    let detached = OperationStore.detached(
      query: PathQuery(value: 1, path: ["b"]),
      initialValue: nil
    )
    var manual: OperationClient? = OperationClient(storeCreator: .defaultTesting)
    weak let weakManual = manual
    detached.context.operationClient = manual
    manual = nil
    #expect(weakManual != nil)
  }

  @Test func `With Stores Adds And Removes Stores And Notifies Subscribers`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    _ = client.store(for: PathQuery(value: 1, path: [1, "a"]))
    _ = client.store(for: PathQuery(value: 2, path: [1, "b"]))
    let changes = Lock([(added: Set<OperationPath>, removed: Set<OperationPath>)]())
    let subscription = client.subscribe(matching: [1]) { change in
      changes.withLock { $0.append((change.storesAdded.paths, change.storesRemoved.paths)) }
    }
    client.withStores(matching: [1]) { stores, createStore in
      stores[[1, "a"]]?.uncheckedSetCurrentValue(50)
      stores.update(
        OpaqueOperationStore(erasing: createStore(for: PathQuery(value: 3, path: [1, "c"])))
      )
      stores.removeValue(forPath: [1, "b"])
    }
    #expect(client.store(with: [1, "a"])?.currentValue as? Int == 50)
    #expect(client.stores(matching: [1]).paths == [[1, "a"], [1, "c"]])
    changes.withLock { changes in
      #expect(changes.count == 1)
      #expect(changes.first?.added == [[1, "c"]])
      #expect(changes.first?.removed == [[1, "b"]])
    }
    subscription.cancel()
  }

  @Test func `With Stores May Be Nested`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let isEmpty = client.withStores(matching: []) { _, _ in
      client.withStores(matching: []) { stores, _ in stores.isEmpty }
    }
    #expect(isEmpty)
  }

  @Test func `Subscriptions Ignore Existing Stores And Edits That Change Nothing`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    _ = client.store(for: PathQuery(value: 1, path: ["a"]))
    let count = Lock(0)
    let subscription = client.subscribe { _ in count.withLock { $0 += 1 } }
    client.withStores(matching: []) { _, _ in }
    _ = client.store(for: PathQuery(value: 1, path: ["a"]))
    #expect(count.withLock { $0 } == 0)
    _ = client.store(for: PathQuery(value: 2, path: ["b"]))
    #expect(count.withLock { $0 } == 1)
    subscription.cancel()
  }

  @Test func `Typed Subscriptions Receive Only Stores Of Their State Type`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let added = Lock([OperationPath]())
    let subscription = client.subscribe(state: QueryState<String, any Error>.self) { change in
      added.withLock { $0.append(contentsOf: change.storesAdded.map(\.path)) }
    }
    _ = client.store(for: PathQuery(value: 1, path: ["int"]))
    _ = client.store(for: OtherPathQuery(path: ["string"]))
    #expect(added.withLock { $0 } == [["string"]])
    subscription.cancel()
  }

  @Test func `Client Stores Run Automatically On Their First Subscriber`() async throws {
    let client = OperationClient(storeCreator: .defaultTesting)
    let store = client.store(for: PathQuery(value: 7, path: ["auto"]))
    #expect(store.isAutomaticRunningEnabled)
    let values = AsyncStream<Int?>.makeStream()
    let subscription = store.subscribe(
      with: QueryEventHandler { state, _ in
        if !state.isLoading { values.continuation.yield(state.currentValue) }
      }
    )
    var iterator = values.stream.makeAsyncIterator()
    #expect(await iterator.next() == .some(nil))
    #expect(await iterator.next() == .some(7))
    subscription.cancel()
  }

  @Test func `Default Testing Creator Turns Off Retries Under Test`() {
    let client = OperationClient()
    let store = client.store(for: PathQuery(value: 1, path: ["retries"]))
    #expect(store.context.operationMaxRetries == 0)
  }

  @Test func `Opaque Store Sets The Value And The Result Of The Typed Store`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let store = client.store(for: PathQuery(value: 1, path: ["opaque"]))
    let opaque = client.store(with: ["opaque"])
    opaque?.uncheckedSetCurrentValue(Int?.some(9))
    #expect(store.currentValue == 9)
    opaque?.uncheckedSetResult(to: .failure(TestError()))
    #expect(store.error is TestError)
    #expect(store.currentValue == 9)
  }

  @Test func `Opaque Store Exposes The Default Value Of A Defaulted Query`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let store = client.store(for: PathQuery(value: 1, path: ["defaulted"]).defaultValue(42))
    #expect(store.currentValue == 42)
    #expect(client.store(with: ["defaulted"])?.currentValue as? Int == 42)
  }

  @Test func `Opaque Store Reports Loading While Its Query Is In Flight`() async throws {
    let client = OperationClient(storeCreator: .defaultTesting)
    let query = GatedQuery()
    let store = client.store(for: query)
    let fetch = Task { try await store.fetch() }
    await query.started.wait()
    #expect(client.store(with: query.path)?.state.isLoading == true)
    query.gate.open()
    _ = try await fetch.value
    #expect(client.store(with: query.path)?.state.isLoading == false)
    #expect(client.store(with: query.path)?.currentValue as? Int == 1)
  }

  @Test func `Resetting Through The Opaque Store Resets The Typed Store`() async throws {
    let client = OperationClient(storeCreator: .defaultTesting)
    let store = client.store(for: PathQuery(value: 5, path: ["reset"]))
    try await store.fetch()
    #expect(store.currentValue == 5)
    client.store(with: ["reset"])?.resetState()
    #expect(store.currentValue == nil)
    #expect(store.valueUpdateCount == 0)
  }

  @Test func `Typed With Stores Edits Only Stores Of That State Type`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    _ = client.store(for: PathQuery(value: 1, path: ["t", 1]))
    _ = client.store(for: OtherPathQuery(path: ["t", 2]))
    let paths = client.withStores(matching: ["t"], of: QueryState<Int, any Error>.self) {
      stores,
      _ in
      for store in stores { store.currentValue = 100 }
      return stores.paths
    }
    #expect(paths == [["t", 1]])
    #expect(client.store(with: ["t", 1])?.currentValue as? Int == 100)
    #expect(client.store(with: ["t", 2])?.currentValue as? String == nil)
  }

  @Test func `Stores Created But Not Kept In With Stores Do Not Join The Client`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let count = Lock(0)
    let subscription = client.subscribe { _ in count.withLock { $0 += 1 } }
    client.withStores(matching: []) { _, createStore in
      _ = createStore(for: PathQuery(value: 1, path: ["dropped"]))
    }
    #expect(client.store(with: ["dropped"]) == nil)
    #expect(count.withLock { $0 } == 0)
    subscription.cancel()
  }

  @Test func `Subscriptions Only See Stores Under Their Prefix`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let added = Lock([OperationPath]())
    let subscription = client.subscribe(matching: ["user"]) { change in
      added.withLock {
        $0.append(contentsOf: change.storesAdded.paths.sorted { "\($0)" < "\($1)" })
      }
    }
    _ = client.store(for: PathQuery(value: 1, path: ["user", 1]))
    _ = client.store(for: PathQuery(value: 2, path: ["post", 1]))
    _ = client.store(for: PathQuery(value: 3, path: ["user", 2]))
    #expect(added.withLock { $0 } == [["user", 1], ["user", 2]])
    subscription.cancel()
  }

  @Test func `Clearing Stores Notifies Subscribers Of The Removed Stores`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    _ = client.store(for: PathQuery(value: 1, path: ["a", 1]))
    _ = client.store(for: PathQuery(value: 2, path: ["a", 2]))
    _ = client.store(for: PathQuery(value: 3, path: ["b"]))
    let removed = Lock([Set<OperationPath>]())
    let subscription = client.subscribe { change in
      removed.withLock { $0.append(change.storesRemoved.paths) }
    }
    client.clearStores(matching: ["a"])
    _ = client.clearStore(with: ["b"])
    _ = client.clearStore(with: ["missing"])
    #expect(removed.withLock { $0 } == [[["a", 1], ["a", 2]], [["b"]]])
    subscription.cancel()
  }

  @Test func `Cancelled Client Subscription Receives No More Changes`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let count = Lock(0)
    let subscription = client.subscribe { _ in count.withLock { $0 += 1 } }
    _ = client.store(for: PathQuery(value: 1, path: ["first"]))
    subscription.cancel()
    subscription.cancel()
    _ = client.store(for: PathQuery(value: 2, path: ["second"]))
    #expect(count.withLock { $0 } == 1)
  }

  @Test func `Every Client Subscriber Receives Each Change`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let counts = Lock([0, 0])
    let first = client.subscribe { _ in counts.withLock { $0[0] += 1 } }
    let second = client.subscribe { _ in counts.withLock { $0[1] += 1 } }
    _ = client.store(for: PathQuery(value: 1, path: ["x"]))
    #expect(counts.withLock { $0 } == [1, 1])
    first.cancel()
    second.cancel()
  }

  @Test func `Default Context Applies Only To Stores Created Afterwards`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let before = client.store(for: PathQuery(value: 1, path: ["before"]))
    client.defaultContext.operationMaxRetries = 7
    let after = client.store(for: PathQuery(value: 1, path: ["after"]))
    #expect(before.context.operationMaxRetries == 0)
    #expect(after.context.operationMaxRetries == 0)
    #expect(after.context.operationClient === client)
    let plain = OperationClient(storeCreator: PlainStoreCreator())
    plain.defaultContext.operationMaxRetries = 7
    #expect(plain.store(for: PathQuery(value: 1, path: ["p"])).context.operationMaxRetries == 7)
    #expect(plain.defaultContext.operationClient === plain)
  }

  @Test func `A Custom Store Creator Builds Every New Store`() {
    let creator = PlainStoreCreator()
    let client = OperationClient(storeCreator: creator)
    let store = client.store(for: PathQuery(value: 1, path: ["custom"]))
    _ = client.store(for: PathQuery(value: 1, path: ["custom"]))
    #expect(creator.created.withLock { $0 } == [["custom"]])
    #expect(!store.isAutomaticRunningEnabled)
  }

  @Test func `A Client Store Calls Its Controller Once However Often It Is Requested`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let spec = ManualRunSpecification()
    let query = PathQuery(value: 1, path: ["controlled"]).rerunOnChange(of: spec)
    _ = client.store(for: query)
    _ = client.store(for: query)
    #expect(spec.subscriberCount == 1)
  }

  @Test func `Callbacks May Use The Client Without Deadlocking`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let seen = Lock(0)
    let subscription = client.subscribe { change in
      seen.withLock { $0 = client.stores(matching: []).count }
      _ = change
    }
    _ = client.store(for: PathQuery(value: 1, path: ["reentrant"]))
    #expect(seen.withLock { $0 } == 1)
    subscription.cancel()
  }

  @Test func `A Store That Joins Through With Stores Is Found By Its Operation`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let joined = OperationStore.detached(
      query: PathQuery(value: 1, path: ["joined"]),
      initialValue: nil
    )
    client.withStores(matching: []) { stores, _ in
      stores.update(OpaqueOperationStore(erasing: joined))
    }
    #expect(client.store(for: PathQuery(value: 1, path: ["joined"])) === joined)
    #expect(client.store(for: PathQuery(value: 2, path: ["joined"])) === joined)
  }

  @Test func `A Client's Store That Rejoins After Being Cleared Is Found By Its Operation`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let store = client.store(for: PathQuery(value: 1, path: ["rejoin"]))
    client.clearStore(with: ["rejoin"])
    client.withStores(matching: []) { stores, _ in
      stores.update(OpaqueOperationStore(erasing: store))
    }
    #expect(client.store(for: PathQuery(value: 1, path: ["rejoin"])) === store)
  }

  @Test func `A Joined Store With Modifiers Is Found By The First Operation With Its State`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let joined = OperationStore.detached(
      query: PathQuery(value: 1, path: ["lenient"]).retry(limit: 1),
      initialValue: nil
    )
    client.withStores(matching: []) { stores, _ in
      stores.update(OpaqueOperationStore(erasing: joined))
    }
    #expect(client.store(for: PathQuery(value: 1, path: ["lenient"])) === joined)
    #expect(client.store(for: PathQuery(value: 1, path: ["lenient"])) === joined)
  }

  @Test func `A Store Made By Create Store Is Found By The Requested Operation`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    let made = client.withStores(matching: []) { stores, createStore in
      let store = createStore(for: PathQuery(value: 1, path: ["made"]))
      stores.update(OpaqueOperationStore(erasing: store))
      return store
    }
    #expect(client.store(for: PathQuery(value: 1, path: ["made"])) === made)
  }

  @Test func `Store Creators Run With No Library Lock Held`() {
    let creator = PlainStoreCreator()
    let client = OperationClient(storeCreator: creator)
    _ = client.store(for: PathQuery(value: 1, path: ["unlocked"]))
    _ = client.store(for: PathQuery(value: 1, path: ["unlocked", 2]))
    #expect(creator.lockHeld.withLock { $0 } == [false, false])
  }

  @Test func `A Duplicate Path Warning Points At The Caller`() {
    let client = OperationClient(storeCreator: .defaultTesting)
    _ = client.store(for: PathQuery(value: 1, path: ["located"]))
    let line = #line + 2
    withKnownIssue {
      _ = client.store(for: OtherPathQuery(path: ["located"]))
    } matching: { issue in
      issue.sourceLocation?.fileID == #fileID && issue.sourceLocation?.line == line
    }
  }
}

/// Creates plain detached-style stores and records the paths it was asked for.
private final class PlainStoreCreator: OperationClient.StoreCreator, Sendable {
  let created = Lock([OperationPath]())
  let lockHeld = Lock([Bool]())

  func store<Operation: StatefulOperationRequest>(
    for operation: sending Operation,
    in context: OperationContext,
    with initialState: Operation.State
  ) -> OperationStore<Operation.State> {
    let isHeld = LibraryLocks.areHeldByCurrentThread
    self.lockHeld.withLock { $0.append(isHeld) }
    self.created.withLock { $0.append(operation.path) }
    return .detached(operation: operation, initialState: initialState, initialContext: context)
  }
}

private struct PathQuery: QueryRequest {
  let value: Int
  let path: OperationPath

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.value
  }
}

private struct OtherPathQuery: QueryRequest {
  let path: OperationPath

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<String, any Error>
  ) async throws -> String {
    "other"
  }
}
