import Foundation
import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationQueueCompat
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `Operation completion block tests` {
  @Test func `every added completion block runs once, in the order they were added`()
    async throws
  {
    let log = EventLog()
    let both = Latch()
    let operation = TestOperation()
    operation.completionBlock = { log.append("original") }
    operation.addCompletionBlock {
      log.append("first")
      both.arrive()
    }
    operation.addCompletionBlock {
      log.append("second")
      both.arrive()
    }
    OperationQueue().addOperation(operation)
    await both.wait(for: 2)
    #expect(log.events == ["original", "first", "second"])
  }

  @Test func `blocks added from many threads at once all run`() async throws {
    let count = 100
    let ran = Latch()
    let operation = BlockOperation {}
    DispatchQueue.concurrentPerform(iterations: count) { _ in
      operation.addCompletionBlock { ran.arrive() }
    }
    OperationQueue().addOperation(operation)
    await ran.wait(for: count)
    #expect(ran.count == count)
  }
}
