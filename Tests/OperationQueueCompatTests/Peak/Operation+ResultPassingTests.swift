import Foundation
import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationQueueCompat
import OperationSynchronization
import OperationTestSupport
import Testing

/// A multiple-result consumer of the test's own, with plain stored input.
private final class Collector: ConcurrentOperation, ConsumesMultipleResults, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; `input` is written only by
  // `passesResult(to:)`, which serialises its appends, before this operation runs.
  var input = [Result<Int, any Error>]()

  override func execute() {
    self.finish()
  }
}

@Suite(.timeLimit(.minutes(1))) struct `Result passing tests` {
  // MARK: - PeakOperation ResultTests

  @Test func `A block map negates a preset input`() async throws {
    let negate = BlockMapOperation<Bool, Bool>(input: true) { $0.map { !$0 } }
    let result = await enqueueForResult(negate)
    #expect(try result.get() == false)
  }

  @Test func `Enqueueing the last operation enqueues its dependency and both complete`()
    async throws
  {
    let latch = Latch()
    let first = BlockResultOperation { 1 }
    let second = BlockResultOperation { 2 }
    first.completionBlock = { latch.arrive() }
    second.completionBlock = { latch.arrive() }
    first.then(do: second).enqueue()
    await latch.wait(for: 2)
    #expect(first.isFinished && second.isFinished)
  }

  @Test func `Results pass along a chain`() async throws {
    let last = BlockResultOperation { true }
      .passesResult(to: BlockMapOperation<Bool, Bool> { $0.map { !$0 } })
      .passesResult(to: BlockMapOperation<Bool, String> { $0.map { "\($0)" } })
    let result = await enqueueForResult(last)
    #expect(try result.get() == "false")
  }

  @Test func `A single operation's chain is itself`() {
    let operation = BlockResultOperation { 1 }
    #expect(operation.operationChain == [operation])
  }

  @Test func `A chain of three holds the three operations`() {
    let op1 = BlockResultOperation { true }
    let op2 = BlockMapOperation<Bool, Bool> { $0 }
    let op3 = BlockMapOperation<Bool, Bool> { $0 }
    op1.passesResult(to: op2).passesResult(to: op3)
    #expect(op3.operationChain == [op1, op2, op3])
  }

  @Test func `Result blocks run in the order added, with the output`() async throws {
    let log = EventLog()
    let operation = BlockResultOperation { "a" }
    operation.addResultBlock { result in log.append("first \((try? result.get()) ?? "-")") }
    let result = await enqueueForResult(operation)
    #expect(try result.get() == "a")
    #expect(log.events == ["first a"])
  }

  @Test func `A result block keeps and runs an existing completion block first`() async throws {
    let log = EventLog()
    let operation = BlockResultOperation { 1 }
    operation.completionBlock = { log.append("completion") }
    operation.addResultBlock { _ in log.append("result 1") }
    operation.addResultBlock { _ in log.append("result 2") }
    _ = await enqueueForResult(operation)
    #expect(log.events == ["completion", "result 1", "result 2"])
  }

  @Test func `A cancelled producer passes no input and the consumer still runs`() async throws {
    let producer = BlockResultOperation { true }
    producer.output = .success(true)
    let consumer = BlockMapOperation<Bool, Bool> { $0 }
    producer.passesResult(to: consumer)
    producer.cancel()
    let result = await enqueueForResult(consumer)
    #expect(consumer.isFinished && !consumer.isCancelled)
    #expect(isNoResult(consumer.input))
    #expect(isNoResult(result))
  }

  @Test func `A failure is passed as a value and the consumer runs`() async throws {
    let producer = BlockResultOperation<Int> { .failure(PeakTestError(id: 1)) }
    let ran = Lock(false)
    let consumer = BlockMapOperation<Int, Int> { input in
      ran.withLock { $0 = true }
      return input
    }
    let result = await enqueueForResult(producer.passesResult(to: consumer))
    #expect(ran.withLock { $0 })
    #expect(throws: PeakTestError(id: 1)) { try result.get() }
  }

  @Test func `Enqueue with completion gets the output without a reference kept`() async throws {
    let result = await withCheckedContinuation { continuation in
      BlockResultOperation { true }.enqueue { result in continuation.resume(returning: result) }
    }
    #expect(try result.get() == true)
  }

  @Test func `A result fans out to several consumers`() async throws {
    let hello = BlockResultOperation { "hello" }
    let consumers = hello.passesResult(to: [
      BlockMapOperation<String, String> { $0.map { $0 + " my name is sam" } },
      BlockMapOperation<String, String> { $0.map { $0 + " world" } },
    ])
    #expect(consumers.count == 2)
    // NB: The chain is enqueued once: enqueueing a shared producer twice would add it twice.
    let results = Lock([String]())
    let latch = Latch()
    for consumer in consumers {
      consumer.addResultBlock { result in
        results.withLock { $0.append((try? result.get()) ?? "-") }
        latch.arrive()
      }
    }
    consumers.enqueue()
    await latch.wait(for: 2)
    #expect(results.withLock { $0 }.sorted() == ["hello my name is sam", "hello world"])
  }

  @Test func `Several results fan in to a combine operation`() async throws {
    let combine = [BlockResultOperation { "hello" }, BlockResultOperation { "world" }]
      .passesResults(to: CombineOperation<String>())
    let values = try await enqueueForResult(combine).get()
    #expect(values.count == 2)
    #expect(Set(values) == ["hello", "world"])
  }

  // MARK: - Beyond PeakOperation's tests

  @Test func `Concurrent producers append every result to a plain consumer`() async throws {
    let producers = (0..<50).map { index in BlockResultOperation { index } }
    let collector = producers.passesResults(to: Collector())
    collector.enqueue()
    try await collector.untilFinished()
    let values = collector.input.compactMap { try? $0.get() }
    #expect(values.sorted() == Array(0..<50))
  }

  @Test func `passesError passes a failure to a consumer of another type`() async throws {
    let producer = BlockResultOperation<Int> { .failure(PeakTestError(id: 2)) }
    let consumer = BlockMapOperation<String, String>(input: "kept") { $0 }
    let result = await enqueueForResult(producer.passesError(to: consumer))
    #expect(throws: PeakTestError(id: 2)) { try result.get() }
  }

  @Test func `passesError leaves the input alone on success`() async throws {
    let producer = BlockResultOperation { 1 }
    let consumer = BlockMapOperation<String, String>(input: "kept") { $0 }
    let result = await enqueueForResult(producer.passesError(to: consumer))
    #expect(try result.get() == "kept")
    #expect(consumer.dependencies == [producer])
  }

  @Test func `Passing results does not keep the operations alive`() {
    weak var weakProducer: BlockResultOperation<Int>?
    weak var weakConsumer: BlockMapOperation<Int, Int>?
    weak var weakCombine: CombineOperation<Int>?
    do {
      let producer = BlockResultOperation { 1 }
      let consumer = BlockMapOperation<Int, Int> { $0 }
      let combine = CombineOperation<Int>()
      producer.passesResult(to: consumer)
      producer.passesResult(to: combine)
      producer.passesError(to: consumer)
      consumer.addResultBlock { _ in }
      weakProducer = producer
      weakConsumer = consumer
      weakCombine = combine
    }
    #expect(weakProducer == nil)
    #expect(weakConsumer == nil)
    #expect(weakCombine == nil)
  }
}
