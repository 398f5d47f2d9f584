import Foundation
import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationQueueCompat
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `ComposedOperation tests` {
  @Test func `It runs a plain BlockOperation and finishes without errors`() async throws {
    let ran = Latch()
    let composed = ComposedOperation(Foundation.BlockOperation { ran.arrive() })
    OperationQueue().addOperation(composed)
    try await composed.untilFinished()
    #expect(ran.count == 1)
    #expect(composed.operation.isFinished)
  }

  @Test func `It runs a ConcurrentOperation and finishes with its errors`() async throws {
    let target = TestOperation(error: TestError(id: 3))
    let composed = ComposedOperation(operation: target)
    OperationQueue().addOperation(composed)
    try? await composed.untilFinished()
    #expect(target.didExecute)
    #expect(composed.errors.count == 1)
    #expect(composed.errors.first as? TestError == TestError(id: 3))
  }

  @Test func `The target's conditions and observers work`() async throws {
    let target = TestOperation()
    target.addCondition(BlockCondition { false })
    let finished = Latch()
    target.addObserver(BlockObserver { _, _ in finished.arrive() })
    let composed = ComposedOperation(target)
    OperationQueue().addOperation(composed)
    try? await composed.untilFinished()
    #expect(!target.didExecute)
    #expect(finished.count == 1)
    #expect(composed.errors.first is BlockConditionFailed)
  }

  @Test func `Cancelling it cancels the target`() async throws {
    let target = TestOperation()
    let composed = ComposedOperation(target)
    composed.cancel()
    #expect(composed.isCancelled && target.isCancelled)
    OperationQueue().addOperation(composed)
    try? await composed.untilFinished()
    #expect(!target.didExecute)
  }

  @Test func `Cancelling it while the target runs cancels the target`() async throws {
    let gate = Gate()
    let started = Latch()
    let target = TestOperation(gate: gate)
    target.addObserver(BlockObserver(didStart: { _ in started.arrive() }))
    let composed = ComposedOperation(target)
    OperationQueue().addOperation(composed)
    await started.wait(for: 1)
    composed.cancel()
    try? await composed.untilFinished()
    #expect(target.isCancelled && target.isFinished)
  }

  @Test func `cancelWithError cancels the target with a parent-cancelled error`() async throws {
    for isRunning in [false, true] {
      let gate = Gate()
      let started = Latch()
      let target = TestOperation(gate: gate)
      target.addObserver(BlockObserver(didStart: { _ in started.arrive() }))
      let composed = ComposedOperation(target)
      if isRunning {
        OperationQueue().addOperation(composed)
        await started.wait(for: 1)
      }
      composed.cancelWithError(TestError(id: 9))
      if !isRunning {
        OperationQueue().addOperation(composed)
      }
      try? await composed.untilFinished()
      #expect(target.isCancelled)
      #expect(target.errors.count == 1)
      let parentError = try #require(target.errors.first as? OperationParentCancelledError)
      #expect(parentError.errors.first as? TestError == TestError(id: 9))
    }
  }
}

@Suite(.timeLimit(.minutes(1))) struct `GatedOperation tests` {
  @Test func `A closed gate finishes without error and the operation never runs`() async throws {
    let target = TestOperation()
    let gated = GatedOperation(target) { false }
    OperationQueue().addOperation(gated)
    try await gated.untilFinished()
    #expect(!target.didExecute)
    #expect(!target.isCancelled)
    #expect(!target.isFinished)
  }

  @Test func `An open gate runs the operation`() async throws {
    let target = TestOperation(error: TestError())
    let gated = GatedOperation(operation: target) { true }
    OperationQueue().addOperation(gated)
    try? await gated.untilFinished()
    #expect(target.didExecute && target.isFinished)
    #expect(gated.errors.first as? TestError == TestError())
  }
}
