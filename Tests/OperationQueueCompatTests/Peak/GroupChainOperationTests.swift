import Foundation
import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationQueueCompat
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `GroupChainOperation tests` {
  @Test func `A group of a successful chain succeeds`() async throws {
    let last = BlockResultOperation { "Hello" }
      .passesResult(to: BlockMapOperation<String, String> { $0.map { $0 + " World!" } })
    let result = await enqueueForResult(last.group())
    #expect(throws: Never.self) { try result.get() }
    #expect(try last.output.get() == "Hello World!")
  }

  @Test func `A failed group passes its failure on and the next group's chain does not run`()
    async throws
  {
    let group1 = BlockResultOperation<String> { .failure(PeakTestError(id: 1)) }
      .passesResult(to: BlockMapOperation<String, String> { $0 })
      .group()
    let inner = TestOperationProducer()
    let group2 = inner.group()
    let result = await enqueueForResult(group1.passesResult(to: group2))
    #expect(throws: PeakTestError(id: 1)) { try result.get() }
    #expect(!inner.didExecute)
  }

  @Test func `A failure of the chain's second operation fails the group, executed directly`()
    async throws
  {
    let group = BlockResultOperation { "Hello" }
      .passesResult(to: BlockMapOperation<String, String> { _ in .failure(PeakTestError(id: 2)) })
      .group()
    group.execute()
    try await group.untilFinished()
    #expect(throws: PeakTestError(id: 2)) { try group.output.get() }
  }

  @Test func `Cancelling a group cancels the children that have not finished`() async throws {
    let op1 = BlockResultOperation { 1 }
    let op2 = GatedResultOperation(value: 2)
    op1.then(do: op2)
    let group = op2.group()
    let groupResult = Latch()
    group.addResultBlock { _ in groupResult.arrive() }
    group.enqueue()
    await op2.started.wait()
    group.cancel()
    await #expect(throws: CancellationError.self) { try await group.untilFinished() }
    await groupResult.wait(for: 1)
    #expect(group.isFinished && group.isCancelled)
    #expect(op1.isFinished && !op1.isCancelled)
    #expect(op2.isFinished && op2.isCancelled)
  }

  @Test func `Input defaults to success and output to no result`() {
    let group = TestOperationProducer().group()
    #expect(throws: Never.self) { try group.input.get() }
    #expect(isNoResult(group.output))
  }

  @Test func `A cancelled group does not run its chain`() async throws {
    let inner = TestOperationProducer()
    let group = inner.group()
    group.cancel()
    group.enqueue()
    try? await group.untilFinished()
    #expect(group.isFinished)
    #expect(!inner.didExecute)
  }

  @Test func `The group runs its chain on its internal queue`() async throws {
    let queueName = Lock<String?>(nil)
    let inner = BlockResultOperation { OperationQueue.current?.name }
    inner.addWillStartBlock { queueName.withLock { $0 = OperationQueue.current?.name } }
    let group = inner.group()
    group.enqueue()
    try await group.untilFinished()
    #expect(queueName.withLock { $0 } == group.internalQueue.name)
  }
}
