import Foundation
import OperationCore
import OperationGraph
import OperationQueueCompat
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `TimeoutObserver on operations tests` {
  @Test func `An Operation Whose Work Never Finishes Is Finished At The Deadline`() async throws {
    let delayer = ManualDelayer()
    let operation = StuckOperation()
    operation.context.operationDelayer = delayer
    operation.addObserver(TimeoutObserver(timeout: 3))
    let next = TestOperation()
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    queue.addOperation(operation)
    queue.addOperation(next)
    await operation.executed.wait()
    await delayer.waitForDelays(count: 1)
    delayer.resumeAll()
    // NB: On an operation that a timeout cannot finish, this would wait for ever; the time limit
    // cancels the test, which then finishes the operation itself, and fails.
    let error = await withTaskCancellationHandler {
      await #expect(throws: OperationErrors.self) { try await operation.untilFinished() }
    } onCancel: {
      operation.finishLate(with: TestError(id: 1))
    }
    #expect(
      error?.errors.map { $0 as? OperationTimeoutError } == [
        OperationTimeoutError(duration: .seconds(3))
      ]
    )
    #expect(operation.isFinished && !operation.isExecuting)
    #expect(operation.isCancelled)
    // NB: The slot is free: the next operation runs.
    try await next.untilFinished()
    #expect(next.didExecute)
    operation.finishLate(with: TestError(id: 2))
    #expect(
      operation.errors.map { $0 as? OperationTimeoutError } == [
        OperationTimeoutError(duration: .seconds(3))
      ]
    )
  }

  @Test func `An Operation Cancelled Before The Deadline But Still Running Is Finished Then`()
    async throws
  {
    let delayer = ManualDelayer()
    let operation = StuckOperation()
    operation.context.operationDelayer = delayer
    let cancellations = Lock(0)
    operation.addObserver(BlockObserver(didCancel: { _ in cancellations.withLock { $0 += 1 } }))
    operation.addObserver(TimeoutObserver(timeout: 3))
    OperationQueue().addOperation(operation)
    await operation.executed.wait()
    await delayer.waitForDelays(count: 1)
    operation.cancel()
    #expect(!operation.isFinished)
    delayer.resumeAll()
    await withTaskCancellationHandler {
      try? await operation.untilFinished()
    } onCancel: {
      operation.finishLate(with: TestError(id: 1))
    }
    #expect(operation.isFinished)
    #expect(
      operation.errors.map { $0 as? OperationTimeoutError } == [
        OperationTimeoutError(duration: .seconds(3))
      ]
    )
    #expect(cancellations.withLock { $0 } == 1)
  }

  @Test
  func `An Operation Ended At Its Deadline Holds Its Mutual Exclusion Lock Until It Finishes`()
    async throws
  {
    enum HeldUntilFinish {}
    let lock = "MutuallyExclusive<HeldUntilFinish>"
    let delayer = ManualDelayer()
    let operation = StuckOperation()
    operation.context.operationDelayer = delayer
    operation.addCondition(MutuallyExclusive<HeldUntilFinish>())
    operation.addObserver(TimeoutObserver(timeout: 3))
    let queue = OperationQueue()
    queue.addOperation(operation)
    await operation.executed.wait()
    await delayer.waitForDelays(count: 1)
    delayer.resumeAll()
    // NB: On an operation that a timeout cannot finish, this would wait for ever; the time limit
    // cancels the test, which then finishes the operation itself, and fails.
    await withTaskCancellationHandler {
      try? await operation.untilFinished()
    } onCancel: {
      operation.finishLate(with: TestError(id: 1))
    }
    #expect(operation.isFinished)
    let isHeldAfterDeadline = ExclusivityLocks.shared.isHeld(lock)
    #expect(isHeldAfterDeadline)
    guard isHeldAfterDeadline else { return }

    let next = TestOperation()
    next.addCondition(MutuallyExclusive<HeldUntilFinish>())
    queue.addOperation(next)
    await ExclusivityLocks.shared.waitForWaiters(lock, count: 1)
    #expect(!next.didExecute)
    operation.finishLate(with: TestError(id: 2))
    try await next.untilFinished()
    #expect(next.didExecute)
    #expect(
      operation.errors.map { $0 as? OperationTimeoutError } == [
        OperationTimeoutError(duration: .seconds(3))
      ]
    )
    #expect(!ExclusivityLocks.shared.isHeld(lock))
  }
}
