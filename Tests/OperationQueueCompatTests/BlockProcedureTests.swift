import Foundation
import OperationCore
import OperationGraph
import OperationQueueCompat
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `BlockProcedure tests` {
  @Test func `the block runs and finishes the operation through its continuation`()
    async throws
  {
    let ran = Lock(false)
    let operation = BlockProcedure { continueWithError in
      ran.withLock { $0 = true }
      continueWithError(nil)
    }
    OperationQueue().addOperation(operation)
    try await operation.untilFinished()
    #expect(ran.withLock { $0 } && !operation.failed)
  }

  @Test func `an error given to the continuation fails the operation`() async throws {
    let operation = BlockProcedure { continueWithError in continueWithError(TestError(id: 2)) }
    OperationQueue().addOperation(operation)
    await #expect(throws: OperationErrors.self) { try await operation.untilFinished() }
    #expect(operation.errors.map { $0 as? TestError } == [TestError(id: 2)])
  }

  @Test @MainActor func `a main-queue block runs on the main actor, then finishes the operation`()
    async throws
  {
    let log = MainActorLog()
    // NB: The block touches main-actor state, which compiles because it runs on the main actor.
    let operation = BlockProcedure(mainQueueBlock: { log.entries.append("ran") })
    OperationQueue().addOperation(operation)
    try await operation.untilFinished()
    #expect(log.entries == ["ran"])
    #expect(operation.isFinished && !operation.failed)
  }

  @Test func `a block procedure without a block finishes`() async throws {
    let operation = BlockProcedure()
    OperationQueue().addOperation(operation)
    try await operation.untilFinished()
    #expect(operation.isFinished && !operation.failed)
  }

  @Test func `a throwing closure fails the operation with its error`() async throws {
    let succeeding = BlockProcedure {}
    let throwing = BlockProcedure { throw TestError(id: 6) }
    let queue = OperationQueue()
    queue.addOperation(succeeding)
    queue.addOperation(throwing)
    try await succeeding.untilFinished()
    await #expect(throws: OperationErrors.self) { try await throwing.untilFinished() }
    #expect(throwing.errors.map { $0 as? TestError } == [TestError(id: 6)])
  }

  @Test func `a dependent block procedure cancelled before it is ready does not run`()
    async throws
  {
    let ran = Lock([String]())
    let first = BlockProcedure { ran.withLock { $0.append("first") } }
    let second = BlockProcedure { ran.withLock { $0.append("second") } }
    second.addDependency(first)
    second.cancel()
    let queue = OperationQueue()
    queue.addOperation(second)
    queue.addOperation(first)
    try await first.untilFinished()
    await #expect(throws: CancellationError.self) { try await second.untilFinished() }
    #expect(ran.withLock { $0 } == ["first"])
  }
}

/// State of the main actor, for a main-queue block to change.
@MainActor private final class MainActorLog {
  var entries = [String]()
}
