import OperationSynchronization
import SharingOperation
import Testing

@Suite struct `SharedOperation+Query tests` {
  @Dependency(\.defaultOperationClient) private var client

  @Test func `Fetch Returns And Shows The Value`() async throws {
    let query = TestQuery().disableAutomaticRunning()
    @SharedOperation(query) var value

    let recorded = Lock(0)
    let fetched = try await $value.fetch(
      handler: QueryEventHandler(onFetchingEnded: { _ in recorded.withLock { $0 += 1 } })
    )
    #expect(fetched == TestQuery.value)
    #expect(value == TestQuery.value)
    #expect(recorded.withLock { $0 } == 1)
  }

  @Test func `Fetch Task Loads At Once And Fetches When Awaited`() async throws {
    let query = TestQuery()
    @SharedOperation(query.disableAutomaticRunning()) var value

    let task = $value.fetchTask()
    #expect($value.isLoading)
    #expect(query.fetches.value == 0)
    #expect(try await task.runIfNeeded() == TestQuery.value)
    #expect(value == TestQuery.value)
  }

  @Test func `The Wrapped Value Is The Value Of A New Store`() {
    @SharedOperation(wrappedValue: 5, TestQuery().disableAutomaticRunning()) var value
    #expect(value == 5)
  }

  @Test func `The Wrapped Value Is Ignored For An Existing Store`() {
    let query = TestQuery().disableAutomaticRunning()
    _ = self.client.store(for: query, initialValue: 3)
    @SharedOperation(wrappedValue: 5, query) var value
    #expect(value == 3)
  }

  @Test func `A Shared Query With A Default Value Shows It`() async throws {
    @SharedOperation(TestQuery().disableAutomaticRunning().defaultValue(7)) var value
    #expect(value == 7)

    try await $value.fetch()
    #expect(value == TestQuery.value)
  }

  @Test func `A Shared Query From An Initial State Uses It`() {
    let query = TestQuery().disableAutomaticRunning()
    @SharedOperation(query, initialState: QueryState(initialValue: 4)) var value
    #expect(value == 4)
  }
}
