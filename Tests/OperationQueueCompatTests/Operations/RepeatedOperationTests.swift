import Foundation
import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationQueueCompat
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `RepeatedOperation tests` {
  @Test func `It runs until maxCount`() async throws {
    let made = Latch()
    let repeated = RepeatedOperation(maxCount: 2) { _ in
      made.arrive()
      return TestOperation()
    }
    OperationQueue().addOperation(repeated)
    try await repeated.untilFinished()
    #expect(repeated.count == 2)
    #expect(made.count == 2)
    #expect(repeated.errors.isEmpty)
  }

  @Test func `It runs until the generator ends, aggregating every run's errors`() async throws {
    let repeated = RepeatedOperation { run in
      run > 5 ? nil : TestOperation(name: "\(run)", error: run < 5 ? TestError(id: run) : nil)
    }
    OperationQueue().addOperation(repeated)
    try? await repeated.untilFinished()
    #expect(repeated.count == 5)
    #expect(repeated.aggregateErrors.count == 4)
    #expect(repeated.errors.count == 4)
  }

  @Test func `It runs the operations one after another`() async throws {
    let log = EventLog()
    let repeated = RepeatedOperation(
      operations: (1...4).map { TestOperation(name: "\($0)", log: log) }
    )
    OperationQueue().addOperation(repeated)
    try await repeated.untilFinished()
    #expect(log.events == ["1", "2", "3", "4"])
    #expect(repeated.count == 4)
  }

  @Test func `It waits the strategy's waits between runs through the context's delayer`()
    async throws
  {
    let delayer = ManualDelayer()
    let repeated = RepeatedOperation(
      maxCount: 3,
      wait: .incrementing(from: .seconds(1), by: .seconds(1))
    ) { _ in TestOperation() }
    repeated.context.operationDelayer = delayer
    OperationQueue().addOperation(repeated)
    await delayer.waitForDelays(count: 1)
    #expect(repeated.count == 2)
    #expect(!repeated.isFinished)
    delayer.resumeNext()
    await delayer.waitForDelays(count: 2)
    delayer.resumeNext()
    try await repeated.untilFinished()
    #expect(delayer.delays == [.seconds(1), .seconds(2)])
    #expect(repeated.count == 3)
  }

  @Test func `A generator that makes nothing finishes at once`() async throws {
    let repeated = RepeatedOperation<TestOperation> { _ in nil }
    OperationQueue().addOperation(repeated)
    try await repeated.untilFinished()
    #expect(repeated.count == 0)
  }

  @Test func `Cancelling it during a wait stops the runs`() async throws {
    let delayer = ManualDelayer()
    let repeated = RepeatedOperation(wait: .fixed(.seconds(1))) { _ in TestOperation() }
    repeated.context.operationDelayer = delayer
    OperationQueue().addOperation(repeated)
    await delayer.waitForDelays(count: 1)
    repeated.cancel()
    try? await repeated.untilFinished()
    #expect(repeated.isCancelled)
    #expect(repeated.count == 2)
    let second = try #require(repeated.operations.last as? TestOperation)
    #expect(!second.didExecute)
  }
}
