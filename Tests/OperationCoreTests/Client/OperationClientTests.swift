import Operation
@_spi(Warnings) import OperationCore
import Synchronization
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
    let changes = Mutex([(added: Set<OperationPath>, removed: Set<OperationPath>)]())
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
    let count = Mutex(0)
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
    let added = Mutex([OperationPath]())
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
