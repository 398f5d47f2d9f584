import Operation
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `OperationStore+OptimisticUpdates tests` {
  private func listStore(_ values: [Int]) -> OperationStore<QueryState<[Int], any Error>> {
    OperationStore.detached(query: ListQuery(), initialValue: values)
  }

  @Test func `An Update Shows At Once And A Rollback Restores The Value Exactly`() {
    let store = self.listStore([1, 2])
    let update = store.applyOptimisticUpdate { $0?.append(3) }
    #expect(store.currentValue == [1, 2, 3])
    update.rollBack()
    #expect(store.currentValue == [1, 2])
  }

  @Test func `A Commit Keeps The Change`() {
    let store = self.listStore([1])
    let update = store.applyOptimisticUpdate { $0?.append(2) }
    update.commit()
    update.rollBack()
    #expect(store.currentValue == [1, 2])
  }

  @Test func `Rolling Back One Of Two Changes Keeps The Other`() {
    let store = self.listStore([])
    let first = store.applyOptimisticUpdate { $0?.append(1) }
    let second = store.applyOptimisticUpdate { $0?.append(2) }
    #expect(store.currentValue == [1, 2])

    first.rollBack()
    #expect(store.currentValue == [2])
    second.rollBack()
    #expect(store.currentValue == [])
  }

  @Test func `Rolling Back After Another Change Was Committed Keeps The Committed One`() {
    let store = self.listStore([])
    let first = store.applyOptimisticUpdate { $0?.append(1) }
    let second = store.applyOptimisticUpdate { $0?.append(2) }
    second.commit()
    first.rollBack()
    #expect(store.currentValue == [2])
  }

  @Test func `Setting The Value During An Update Applies The Change On Top Of It`() {
    let store = self.listStore([1])
    let update = store.applyOptimisticUpdate { $0?.append(9) }
    store.currentValue = [5]
    #expect(store.currentValue == [5, 9])
    update.rollBack()
    #expect(store.currentValue == [5])
  }

  @Test func `Releasing An Unresolved Update Rolls It Back`() {
    let store = self.listStore([1])
    do {
      _ = store.applyOptimisticUpdate { $0?.append(2) }
    }
    #expect(store.currentValue == [1])
  }

  @Test func `A Reset Drops The Changes In Flight`() {
    let store = self.listStore([1])
    let update = store.applyOptimisticUpdate { $0?.append(2) }
    store.resetState()
    #expect(store.currentValue == [1])
    update.rollBack()
    #expect(store.currentValue == [1])
  }

  @Test func `A Fetch That Started Before The Update Never Overwrites It`() async throws {
    let query = SteppedQuery(path: ["stepped"])
    let store = OperationStore.detached(query: query, initialValue: 0)
    let fetch = Task { try await store.fetch() }
    await query.steps.waitUntilStarted(0)

    let update = store.applyOptimisticUpdate { $0 = 10 }
    query.steps.release(0, returning: 1)
    #expect(try await fetch.value == 1)
    #expect(store.currentValue == 10)
    update.commit()
    #expect(store.currentValue == 10)
    #expect(!store.isLoading)
  }

  @Test func `A Fetch That Ends After The Commit Is Refused Too`() async throws {
    let query = SteppedQuery(path: ["stepped"])
    let store = OperationStore.detached(query: query, initialValue: 0)
    let fetch = Task { try await store.fetch() }
    await query.steps.waitUntilStarted(0)

    store.applyOptimisticUpdate { $0 = 10 }.commit()
    query.steps.release(0, returning: 1)
    _ = try await fetch.value
    #expect(store.currentValue == 10)

    // NB: A fetch that starts after the update ended is accepted.
    let next = Task { try await store.fetch() }
    query.steps.release(1, returning: 2)
    _ = try await next.value
    #expect(store.currentValue == 2)
  }

  @Test func `A Refused Result Makes An Observed Store Run Again When The Update Ends`()
    async throws
  {
    let client = OperationClient()
    let query = SteppedQuery(path: ["stepped"])
    let store = client.store(for: query)
    let update = store.applyOptimisticUpdate { $0 = 10 }
    let subscription = store.subscribe { _ in }
    await query.steps.waitUntilStarted(0)
    query.steps.release(0, returning: 1)
    try await store.activeTasks.first?.runIfNeeded()
    #expect(store.currentValue == 10)

    update.commit()
    #expect(store.isInvalidated)
    await query.steps.waitUntilStarted(1)
    query.steps.release(1, returning: 2)
    try await store.activeTasks.first?.runIfNeeded()
    #expect(store.currentValue == 2)
    subscription.cancel()
  }
}

/// A query of a list that returns an empty list.
private struct ListQuery: QueryRequest, Hashable {
  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<[Int], any Error>
  ) async throws -> [Int] {
    []
  }
}
