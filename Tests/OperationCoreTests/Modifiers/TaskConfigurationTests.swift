import OperationCore
import Testing

@Suite struct `TaskConfiguration tests` {
  @Test func `Replaces The Configuration Of The Store Tasks`() async throws {
    let store = OperationStore.detached(
      query: TestQuery().taskConfiguration(
        OperationTaskConfiguration(name: "Load", priority: .low)
      ),
      initialValue: nil
    )
    let task = store.fetchTask()
    #expect(task.configuration.name == "Load")
    #expect(task.configuration.priority == .low)
    try await task.runIfNeeded()
  }

  @Test func `Edits The Configuration In Place`() {
    let store = OperationStore.detached(
      query: TestQuery().taskConfiguration { $0.priority = .high },
      initialValue: nil
    )
    #expect(store.context.operationTaskConfiguration.priority == .high)
    #expect(store.context.operationTaskConfiguration.name == nil)
  }

  @Test func `The Innermost Configuration Wins`() {
    let store = OperationStore.detached(
      query: TestQuery().taskConfiguration { $0.name = "Inner" }.taskConfiguration {
        $0.name = "Outer"
      },
      initialValue: nil
    )
    #expect(store.context.operationTaskConfiguration.name == "Inner")
  }
}
