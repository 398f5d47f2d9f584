import OperationCore
import OperationSynchronization
import Testing

@Suite struct `OperationRunner tests` {
  @Test func `Runner Runs The Operation`() async throws {
    let runner = OperationRunner(operation: TestQuery())
    #expect(try await runner.run() == 1)
  }

  @Test func `Runner Calls Setup Once At Init`() async {
    let operation = SetupCountingOperation()
    let runner = OperationRunner(operation: operation)
    #expect(operation.setupCount.value == 1)
    #expect(await runner.run() == 1)
    #expect(await runner.run() == 1)
    #expect(operation.setupCount.value == 1)
  }

  @Test func `Runner Passes A Given Context Instead Of Its Own`() async {
    let runner = OperationRunner(operation: SetupCountingOperation())
    #expect(await runner.run(in: OperationContext()) == 0)
  }

  @Test func `Runner Continuation Receives Yields`() async throws {
    let runner = OperationRunner(operation: YieldingQuery(yields: [.success(1), .success(2)]))
    let yielded = Lock([Int]())
    let value = try await runner.run(
      with: OperationContinuation { result, _ in
        if case .success(let value) = result {
          yielded.withLock { $0.append(value) }
        }
      }
    )
    #expect(value == 100)
    #expect(yielded.withLock { $0 } == [1, 2])
  }
}
