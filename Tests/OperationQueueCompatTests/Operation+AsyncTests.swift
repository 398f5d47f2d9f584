import Foundation
import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationQueueCompat
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `Operation async tests` {
  @Test func `a plain Foundation operation can be awaited`() async throws {
    let ran = Lock(false)
    let operation = BlockOperation { ran.withLock { $0 = true } }
    OperationQueue().addOperation(operation)
    try await operation.untilFinished()
    #expect(ran.withLock { $0 })
    #expect(operation.isFinished)
  }

  @Test func `a finished operation returns at once`() async throws {
    let operation = TestOperation()
    operation.start()
    try await operation.untilFinished()
    let plain = BlockOperation {}
    plain.start()
    try await plain.untilFinished()
  }

  @Test func `cancelling the waiting task cancels the operation`() async throws {
    let gate = Gate()
    let operation = TestOperation(gate: gate)
    let started = Latch()
    operation.addDidStartBlock { started.arrive() }
    OperationQueue().addOperation(operation)
    await started.wait(for: 1)
    let waiting = Task { try await operation.untilFinished() }
    waiting.cancel()
    await #expect(throws: CancellationError.self) { try await waiting.value }
    #expect(operation.isCancelled && operation.isFinished)
  }

  @Test func `a cancelled plain operation throws a cancellation error`() async throws {
    let ran = Lock(false)
    let operation = BlockOperation { ran.withLock { $0 = true } }
    operation.cancel()
    OperationQueue().addOperation(operation)
    await #expect(throws: CancellationError.self) { try await operation.untilFinished() }
    #expect(!ran.withLock { $0 })
  }

  @Test func `a failed operation throws its errors`() async throws {
    let operation = TestOperation(error: TestError(id: 9))
    OperationQueue().addOperation(operation)
    let error = await #expect(throws: OperationErrors.self) { try await operation.untilFinished() }
    #expect(error?.errors.map { $0 as? TestError } == [TestError(id: 9)])
    #expect(error?.description.contains("1 error(s)") == true)
  }

  @Test func `the wait covers the did-finish blocks and observers`() async throws {
    let log = EventLog()
    let operation = TestOperation()
    operation.addDidFinishBlock { log.append("block") }
    operation.addObserver(BlockObserver { _, _ in log.append("observer") })
    OperationQueue().addOperation(operation)
    try await operation.untilFinished()
    #expect(log.events == ["block", "observer"])
  }
}
