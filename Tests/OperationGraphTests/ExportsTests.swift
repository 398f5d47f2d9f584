import OperationGraph
import OperationGraphTestFixtures
import Testing

@Suite struct `Exports tests` {
  @Test func `Importing The Graph Module Brings The Core's Requests`() async throws {
    let runner = OperationRunner(operation: ConstantRequest(value: 3))
    #expect(await runner.run() == 3)
  }
}
