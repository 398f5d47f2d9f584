import Foundation
import OperationGraph
import OperationGraphTestFixtures
import OperationQueueCompat
import Testing

@Suite(.timeLimit(.minutes(1))) struct `BlockResultOperation tests` {
  @Test func `A value block produces a success`() async throws {
    let result = await enqueueForResult(BlockResultOperation { 42 })
    #expect(try result.get() == 42)
  }

  @Test func `A result block produces its result`() async throws {
    let result = await enqueueForResult(
      BlockResultOperation<Int> { .failure(PeakTestError(id: 3)) }
    )
    #expect(throws: PeakTestError(id: 3)) { try result.get() }
  }

  @Test func `The output is no result until the block has run`() async throws {
    let operation = BlockResultOperation { 1 }
    #expect(isNoResult(operation.output))
    operation.enqueue()
    try await operation.untilFinished()
    #expect(try operation.output.get() == 1)
  }

  @Test func `A cancelled operation does not run its block`() async throws {
    let ran = EventLog()
    let operation = BlockResultOperation {
      ran.append("ran")
      return 1
    }
    operation.cancel()
    operation.enqueue()
    try? await operation.untilFinished()
    #expect(ran.events.isEmpty)
    #expect(isNoResult(operation.output))
  }
}
