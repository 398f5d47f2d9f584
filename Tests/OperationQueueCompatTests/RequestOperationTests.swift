import Foundation
import Operation
import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationQueueCompat
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `RequestOperation tests` {
  @Test func `a request's value is the operation's output`() async throws {
    let operation = RequestOperation(ConstantRequest(value: 42))
    OperationQueue().addOperation(operation)
    try await operation.untilFinished()
    #expect(try operation.output.get() == 42)
    #expect(!operation.failed)
  }

  @Test func `a failed request fails the operation and its output`() async throws {
    let operation = RequestOperation(FailingRequest())
    OperationQueue().addOperation(operation)
    await #expect(throws: OperationErrors.self) { try await operation.untilFinished() }
    #expect(throws: TestError.self) { try operation.output.get() }
    #expect(operation.errors.map { $0 as? TestError } == [TestError(id: 8)])
  }

  @Test func `cancelling the operation cancels the request`() async throws {
    let started = Latch()
    let operation = RequestOperation(SuspendingRequest(started: started))
    OperationQueue().addOperation(operation)
    await started.wait(for: 1)
    operation.cancel()
    await #expect(throws: CancellationError.self) { try await operation.untilFinished() }
    #expect(throws: CancellationError.self) { try operation.output.get() }
    #expect(operation.errors.isEmpty)
  }

  @Test func `the request runs with the operation's context`() async throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 77))
    let operation = RequestOperation(ClockReadingRequest())
    operation.context.operationClock = clock
    OperationQueue().addOperation(operation)
    try await operation.untilFinished()
    #expect(try operation.output.get() == Date(timeIntervalSince1970: 77))
  }

  @Test func `a store-backed operation shares the store's state`() async throws {
    let client = OperationClient()
    let store = client.store(for: CountingQuery())
    let operation = RequestOperation(store: store)
    OperationQueue().addOperation(operation)
    try await operation.untilFinished()
    #expect(try operation.output.get() == 1)
    #expect(store.currentValue == 1)
  }

  @Test func `its output passes into a consumer`() async throws {
    let producer = RequestOperation(ConstantRequest(value: 2))
    let consumer = BlockMapOperation<Int, Int> { input in input.map { $0 * 10 } }
    producer.passesResult(to: consumer).enqueue()
    try await consumer.untilFinished()
    #expect(try consumer.output.get() == 20)
  }
}

private struct FailingRequest: QueryRequest, Hashable {
  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    throw TestError(id: 8)
  }
}

private struct SuspendingRequest: QueryRequest, Sendable {
  let started: Latch

  var path: OperationPath { ["SuspendingRequest"] }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.started.arrive()
    await suspendUntilCancelled()
    throw CancellationError()
  }
}

private struct ClockReadingRequest: QueryRequest, Hashable {
  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Date, any Error>
  ) async throws -> Date {
    context.operationClock.now()
  }
}
