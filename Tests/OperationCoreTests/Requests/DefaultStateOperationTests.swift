import OperationCore
import Testing

@Suite struct `DefaultStateOperation tests` {
  @Test func `Default Value Store Has The Default Before Fetching`() {
    let store = OperationStore.detached(query: TestQuery().defaultValue(5))
    let value: Int = store.currentValue
    #expect(value == 5)
    #expect(store.initialValue == 5)
    #expect(store.valueUpdateCount == 0)
  }

  @Test func `Default Value Store Takes The Fetched Value`() async throws {
    let store = OperationStore.detached(query: TestQuery().defaultValue(5))
    #expect(try await store.fetch() == 1)
    #expect(store.currentValue == 1)
  }

  @Test func `Default Value Store Sets And Resets Values`() {
    let store = OperationStore.detached(query: TestQuery().defaultValue(5))
    store.currentValue = 9
    #expect(store.currentValue == 9)
    store.resetState()
    #expect(store.currentValue == 5)
  }

  @Test func `Default Value Operation Keeps The Base Path`() {
    #expect(TestQuery().defaultValue(5).path == TestQuery().path)
  }
}
