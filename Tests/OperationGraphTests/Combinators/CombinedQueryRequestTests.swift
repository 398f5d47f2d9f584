import OperationCore
import OperationGraph
import OperationTestSupport
import Testing

@Suite struct `CombinedQueryRequest tests` {
  @Test func `Fetch Runs The Combined Request`() async throws {
    let log = ChainLog()
    let chain = Step.succeeding("a", 1, log: log).then(Step.succeeding("b", 2, log: log))
    let value = try await chain.fetch(
      isolation: nil,
      in: OperationContext(),
      with: OperationContinuation { _, _ in }
    )
    #expect(value == 2)
    #expect(log.runs == ["a", "b"])
  }

  @Test func `A Combined Store Keeps A Query State`() async throws {
    let client = OperationClient(storeCreator: PlainChainStoreCreator())
    let log = ChainLog()
    let store = client.store(
      for: Step.succeeding("a", 1, log: log).map { $0 * 10 },
      initialValue: 5
    )
    #expect(store.currentValue == 5)
    try await store.fetch()
    #expect(store.currentValue == 10)
    #expect(store.state.valueUpdateCount == 1)
  }
}
