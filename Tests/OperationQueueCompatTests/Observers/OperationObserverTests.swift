import Foundation
import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationQueueCompat
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `OperationObserver tests` {
  @Test func `an observer sees every event of an operation that executes, in order`()
    async throws
  {
    let log = EventLog()
    let operation = TestOperation(error: TestError(id: 1))
    operation.addObserver(RecordingObserver(log: log))
    #expect(log.events == ["attach"])
    OperationQueue().addOperation(operation)
    await #expect(throws: OperationErrors.self) { try await operation.untilFinished() }
    #expect(
      log.events == ["attach", "will start", "did start", "will finish 1", "did finish 1"]
    )
    #expect(operation.observers.count == 1)
  }

  @Test func `an operation that does not execute gets only the finish events`() async throws {
    let log = EventLog()
    let operation = TestOperation()
    operation.addObserver(RecordingObserver(log: log))
    operation.addCondition(BlockCondition { false })
    OperationQueue().addOperation(operation)
    await #expect(throws: OperationErrors.self) { try await operation.untilFinished() }
    #expect(log.events == ["attach", "will finish 1", "did finish 1"])
  }

  @Test func `did cancel comes once, with the errors of the cancel`() async throws {
    let log = EventLog()
    let operation = TestOperation()
    operation.addObserver(RecordingObserver(log: log))
    operation.cancelWithError(TestError(id: 4))
    operation.cancel()
    operation.cancelWithError(TestError(id: 5))
    #expect(log.events == ["attach", "did cancel 1"])
    OperationQueue().addOperation(operation)
    await #expect(throws: OperationErrors.self) { try await operation.untilFinished() }
    #expect(operation.errors.map { $0 as? TestError } == [TestError(id: 4), TestError(id: 5)])
  }

  @Test func `a produced operation runs on the producer's queue and gets attaching observers`()
    async throws
  {
    let log = EventLog()
    let produced = TestOperation(name: "produced")
    let producer = Producer(producing: produced)
    producer.addObserver(RecordingObserver(log: log, attachesToProduced: true))
    let queue = OperationQueue()
    queue.name = "OperationObserverTests.produce"
    queue.addOperation(producer)
    try await producer.untilFinished()
    try await produced.untilFinished()
    #expect(produced.didExecute)
    #expect(producer.queueOfProduced == "OperationObserverTests.produce")
    #expect(log.events.contains("did produce produced"))
    #expect(log.events.filter { $0 == "attach" }.count == 2)
  }

  @Test func `an operation produced outside of a queue still runs`() async throws {
    let produced = TestOperation()
    let producer = TestOperation()
    producer.produceOperation(produced)
    try await produced.untilFinished()
    #expect(produced.didExecute)
  }
}

/// Logs every event it gets.
private struct RecordingObserver: OperationObserver {
  let log: EventLog
  var attachesToProduced = false

  var attachesToProducedOperations: Bool { self.attachesToProduced }

  func didAttach(to operation: ConcurrentOperation) { self.log.append("attach") }
  func willStart(_ operation: ConcurrentOperation) { self.log.append("will start") }
  func didStart(_ operation: ConcurrentOperation) { self.log.append("did start") }
  func didCancel(_ operation: ConcurrentOperation, errors: [any Error]) {
    self.log.append("did cancel \(errors.count)")
  }
  func didProduce(_ produced: Foundation.Operation, from operation: ConcurrentOperation) {
    self.log.append("did produce \(produced.name ?? "?")")
  }
  func willFinish(_ operation: ConcurrentOperation, errors: [any Error]) {
    self.log.append("will finish \(errors.count)")
  }
  func didFinish(_ operation: ConcurrentOperation, errors: [any Error]) {
    self.log.append("did finish \(errors.count)")
  }
}

/// Produces an operation when it executes, and records the queue the produced one ran on.
private final class Producer: ConcurrentOperation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; `produced` is a `let` and
  // `queueName` a lock.
  private let produced: TestOperation
  private let queueName = Lock<String?>(nil)

  init(producing produced: TestOperation) {
    self.produced = produced
  }

  var queueOfProduced: String? {
    self.queueName.withLock { $0 }
  }

  override func execute() {
    self.produced.addWillStartBlock { [queueName] in
      let name = OperationQueue.current?.name
      queueName.withLock { $0 = name }
    }
    self.produceOperation(self.produced)
    self.finish()
  }
}
