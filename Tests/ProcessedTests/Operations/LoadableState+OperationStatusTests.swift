import OperationCore
import OperationTestSupport
import Processed
import Testing

@Suite struct `LoadableState+OperationStatus tests` {
  @Test func `Each Status Maps To Its Loadable State`() {
    #expect(LoadableState(OperationStatus<Int, TestError>.idle) == .absent)
    #expect(LoadableState(OperationStatus<Int, TestError>.loading) == .loading)
    #expect(LoadableState(OperationStatus<Int, TestError>.result(.success(1))) == .loaded(1))
    let failure = LoadableState(OperationStatus<Int, TestError>.result(.failure(TestError())))
    #expect(failure.error as? TestError == TestError())
  }

  @Test func `A Query Store Without A Value Is Absent`() {
    let store = OperationStore.detached(query: NumberQuery(), initialValue: nil)
    #expect(store.loadableState == .absent)
  }

  @Test func `A Query Store Is Loaded After A Run`() async throws {
    let store = OperationStore.detached(query: NumberQuery(value: 7), initialValue: nil)
    try await store.run()
    #expect(store.loadableState == .loaded(7))
    #expect(LoadableState(store.status) == .loaded(7))
  }

  @Test func `A Query Store Is An Error After A Failed Run`() async {
    let store = OperationStore.detached(query: NumberQuery(fails: true), initialValue: nil)
    _ = try? await store.run()
    #expect(store.loadableState.error as? TestError == TestError())
  }

  @Test func `A Query Store Is Loading While It Runs`() async throws {
    let query = GatedQuery()
    let store = OperationStore.detached(query: query, initialValue: nil)
    let task = store.runTask()
    #expect(store.loadableState == .loading)
    query.gate.open()
    _ = try await task.runIfNeeded()
    #expect(store.loadableState == .loaded(1))
  }

  @Test func `A Store With A Default Value Is Loaded With It`() {
    let store = OperationStore.detached(query: NumberQuery().defaultValue(5))
    #expect(store.currentValue == 5)
    #expect(store.loadableState == LoadableState(store.status))
  }
}
