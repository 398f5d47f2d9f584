import Foundation
import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationQueueCompat
import OperationSynchronization
import OperationTestSupport
import Testing

#if SwiftOperationLogging
  import Logging
#endif

@Suite(.timeLimit(.minutes(1))) struct `Observers on operations tests` {
  // MARK: - TimeoutObserver

  @Test func `A timed-out operation finishes with exactly one timeout error`() async throws {
    let delayer = ManualDelayer()
    let operation = TestOperation(gate: Gate())
    operation.context.operationDelayer = delayer
    operation.addObserver(TimeoutObserver(timeout: 0.1))
    OperationQueue().addOperation(operation)
    await delayer.waitForDelays(count: 1)
    #expect(delayer.delays == [.seconds(0.1)])
    delayer.resumeAll()
    try? await operation.untilFinished()
    #expect(operation.errors.count == 1)
    #expect(operation.errors.first is OperationTimeoutError)
    #expect(operation.isCancelled)
  }

  @Test func `An operation that finishes in time has no timeout error`() async throws {
    let delayer = ManualDelayer()
    let gate = Gate()
    let operation = TestOperation(gate: gate)
    operation.context.operationDelayer = delayer
    operation.addObserver(TimeoutObserver(timeout: 5))
    OperationQueue().addOperation(operation)
    await delayer.waitForDelays(count: 1)
    gate.open()
    try await operation.untilFinished()
    #expect(operation.errors.isEmpty)
  }

  // MARK: - BlockObserver

  @Test func `Each BlockObserver handler runs once, with the operation and its errors`()
    async throws
  {
    let log = EventLog()
    let produced = TestOperation(name: "Produced")
    let operation = ProducingFailingOperation(producing: produced, error: TestError())
    operation.name = "Test"
    operation.addObserver(
      BlockObserver(
        didAttach: { log.append("attach \($0.name ?? "")") },
        willStart: { _ in log.append("willStart") },
        didStart: { _ in log.append("didStart") },
        didCancel: { _ in log.append("didCancel") },
        didProduce: { _, produced in log.append("didProduce \(produced.name ?? "")") },
        willFinish: { _, errors in log.append("willFinish \(errors.count)") },
        didFinish: { _, errors in log.append("didFinish \(errors.count)") }
      )
    )
    #expect(log.events == ["attach Test"])
    OperationQueue().addOperation(operation)
    try? await operation.untilFinished()
    try await produced.untilFinished()
    #expect(
      log.events == [
        "attach Test", "willStart", "didStart", "didProduce Produced", "willFinish 1",
        "didFinish 1",
      ]
    )
  }

  @Test func `A successful operation's did-finish handler gets no errors`() async throws {
    let errorCounts = Lock([Int]())
    let operation = TestOperation()
    operation.addObserver(
      BlockObserver { _, errors in errorCounts.withLock { $0.append(errors.count) } }
    )
    OperationQueue().addOperation(operation)
    try await operation.untilFinished()
    #expect(errorCounts.withLock { $0 } == [0])
  }

  @Test func `didCancel runs once even after two cancels, before or after enqueueing`()
    async throws
  {
    for isEnqueuedFirst in [false, true] {
      let cancels = Latch()
      let gate = Gate()
      let started = Latch()
      let operation = TestOperation(gate: gate)
      operation.addObserver(
        BlockObserver(
          didStart: { _ in started.arrive() },
          didCancel: { _ in cancels.arrive() }
        )
      )
      if isEnqueuedFirst {
        OperationQueue().addOperation(operation)
        await started.wait(for: 1)
      }
      operation.cancel()
      operation.cancel()
      if !isEnqueuedFirst {
        OperationQueue().addOperation(operation)
      }
      try? await operation.untilFinished()
      #expect(cancels.count == 1)
    }
  }

  // MARK: - produceOperation

  @Test func `A produced operation runs on the producer's queue`() async throws {
    let produced = TestOperation(name: "Produced")
    let producer = ProducingOperation(producing: produced)
    let queue = OperationQueue()
    queue.name = "producer queue"
    let queueName = Lock<String?>(nil)
    produced.addObserver(
      BlockObserver(didStart: { _ in queueName.withLock { $0 = OperationQueue.current?.name } })
    )
    queue.addOperation(producer)
    try await producer.untilFinished()
    try await produced.untilFinished()
    #expect(produced.didExecute)
    #expect(queueName.withLock { $0 } == "producer queue")
  }

  // MARK: - LoggingObserver

  #if SwiftOperationLogging
    @Test func `LoggingObserver logs an operation's errors, cancel and produced operations`()
      async throws
    {
      let (logger, messages) = capturingLogger()
      let failing = TestOperation(name: "Test Logging Operation", error: TestError(id: 1))
      failing.addObserver(LoggingObserver(logger: logger))
      let cancelled = TestOperation(name: "Cancelled")
      cancelled.addObserver(LoggingObserver(logger: logger))
      cancelled.cancel()
      let producer = ProducingOperation(
        name: "Producer",
        producing: TestOperation(name: "Test Operation")
      )
      producer.addObserver(LoggingObserver(logger: logger))
      let queue = OperationQueue()
      for operation in [failing, cancelled, producer] as [Foundation.Operation] {
        queue.addOperation(operation)
      }
      try? await failing.untilFinished()
      try? await cancelled.untilFinished()
      try await producer.untilFinished()
      let events = messages.events
      #expect(
        events.contains(
          "Test Logging Operation: did finish with error(s): [\(String(reflecting: TestError(id: 1)))]."
        )
      )
      #expect(events.contains("Cancelled: did cancel."))
      #expect(events.contains("Producer: did produce operation: Test Operation."))
    }
  #endif
}

/// Produces an operation when it executes, then finishes with an error.
final class ProducingFailingOperation: ConcurrentOperation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; the stored properties are
  // `let`s of `Sendable` types.
  private let produced: Foundation.Operation
  private let error: any Error

  init(producing produced: Foundation.Operation, error: any Error) {
    self.produced = produced
    self.error = error
    super.init()
  }

  override func execute() {
    self.produceOperation(self.produced)
    self.finish(self.error)
  }
}
