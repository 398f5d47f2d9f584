import Foundation
import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationQueueCompat
import OperationSynchronization
import OperationTestSupport
import Testing

// The examples of PeakOperation's README, as written, modulo Swift 6: `@unchecked Sendable` on
// subclasses, `any Error`, initial values for stored properties, `Sendable` result types (a
// result crosses threads, so `RetryingOperation<AnyObject>` becomes `RetryingOperation<Void>`:
// the README's operation only fails), and a log instead of `print`.

private let readmeLog = EventLog()

// MARK: - Concurrent Operations

private final class MyOperation: ConcurrentOperation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; there is no stored property.
  override func execute() {
    readmeLog.append("Hello World!")
    finish()
  }
}

// MARK: - Passing Results

private final class IntOperation: ConcurrentOperation, ProducesResult, @unchecked Sendable {
  // NB: `@unchecked Sendable`: `output` is written in `execute()` and read after the operation
  // finished, which the queue orders; the README's classes have no lock.
  var output: Result<Int, any Error> = .failure(ResultError.noResult)
  override func execute() {
    output = Result { 1 }
    finish()
  }
}

private final class AddOneOperation: ConcurrentOperation, ConsumesResult, ProducesResult,
  @unchecked Sendable
{
  // NB: `@unchecked Sendable`: `input` is written before the operation runs and `output` read
  // after it finished, which the queue orders.
  var input: Result<Int, any Error> = .failure(ResultError.noResult)
  var output: Result<String, any Error> = .failure(ResultError.noResult)
  override func execute() {
    output = Result { "\(try input.get() + 1)" }
    finish()
  }
}

private final class PrintOperation: ConcurrentOperation, ConsumesResult, @unchecked Sendable {
  // NB: `@unchecked Sendable`: `input` is written before the operation runs, which the queue
  // orders.
  var input: Result<String, any Error> = .failure(ResultError.noResult)
  let log: EventLog
  init(log: EventLog) {
    self.log = log
  }
  override func execute() {
    do {
      log.append("Hello \(try input.get())!")
    } catch {}
    finish()
  }
}

private final class RethrowingOperation: ConcurrentOperation, ConsumesResult, ProducesResult,
  @unchecked Sendable
{
  // NB: `@unchecked Sendable`: `input` is written before the operation runs and `output` read
  // after it finished, which the queue orders.
  var input: Result<String, any Error> = .failure(ResultError.noResult)
  var output: Result<String, any Error> = .failure(ResultError.noResult)
  override func execute() {
    do {
      let _ = try input.get()
      output = .success("ran")
    } catch {
      output = Result { throw error }
    }
    finish()
  }
}

// MARK: - Retrying

private struct FlakyServiceError: Error {}

private final class MyRetryingOperation: RetryingOperation<Void>, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; `error` is a `let`.
  let error = FlakyServiceError()
  let executions = Lock(0)
  override func execute() {
    executions.withLock { $0 += 1 }
    output = Result { throw error }
    finish()
  }
}

@Suite(.timeLimit(.minutes(1))) struct `PeakOperation README tests` {
  @Test func `Concurrent operations`() async throws {
    let queue = OperationQueue()
    let operation = MyOperation()
    operation.enqueue(on: queue)
    try await operation.untilFinished()
    #expect(readmeLog.events.contains("Hello World!"))
  }

  @Test func `Chaining operations`() async throws {
    let log = EventLog()
    let firstOperation = TestOperation(name: "first", log: log)
    let secondOperation = TestOperation(name: "second", log: log)

    firstOperation
      .then(do: secondOperation)
      .enqueue()

    try await secondOperation.untilFinished()
    #expect(log.events == ["first", "second"])
  }

  @Test func `Chaining with progress`() async throws {
    let firstOperation = TestOperation()
    let secondOperation = TestOperation()
    let progress: Progress =
      firstOperation
      .then(do: secondOperation)
      .enqueueWithProgress()

    // or

    let overall: Progress = secondOperation.overallProgress()

    try await secondOperation.untilFinished()
    // NB: The second progress's stand-ins complete once each operation's finishing is over.
    try await firstOperation.untilFinished()
    #expect(progress.fractionCompleted == 1)
    #expect(overall.fractionCompleted == 1)
  }

  @Test func `Passing results`() async throws {
    let log = EventLog()
    let print = PrintOperation(log: log)
    IntOperation()
      .passesResult(to: AddOneOperation())
      .passesResult(to: print)
      .enqueue()

    // Hello 2!
    try await print.untilFinished()
    #expect(log.events == ["Hello 2!"])
  }

  @Test func `Failures are passed along`() async throws {
    let failingOperation = BlockResultOperation<String> { .failure(FlakyServiceError()) }
    let successfulOperation = RethrowingOperation()
    let anotherSuccessfulOperation = RethrowingOperation()

    let result = await withCheckedContinuation { continuation in
      failingOperation
        .passesResult(to: successfulOperation)
        .passesResult(to: anotherSuccessfulOperation)
        .enqueue()

      anotherSuccessfulOperation.addResultBlock { result in
        // result would contain the error from failingOperation
        // even though the other operations still ran
        continuation.resume(returning: result)
      }
    }
    #expect(throws: FlakyServiceError.self) { try result.get() }
    #expect(successfulOperation.isFinished && !successfulOperation.isCancelled)
  }

  @Test func `Grouping`() async throws {
    let intOperation = BlockResultOperation { 1 }
    let stringOperation = BlockMapOperation<Int, String> { $0.map(String.init) }
    let boolOperation = BlockResultOperation { true }
    let anyOperation = BlockMapOperation<Bool, String> { $0.map { "\($0)" } }

    // would otherwise produce String, now produces Void
    let group1 =
      intOperation
      .passesResult(to: stringOperation)
      .group()

    // Would otherwise accept Bool, now consumes Void
    let group2 =
      boolOperation
      .passesResult(to: anyOperation)
      .group()

    group1
      .passesResult(to: group2)
      .enqueue()

    try await group2.untilFinished()
    #expect(throws: Never.self) { try group2.output.get() }
    #expect(try stringOperation.output.get() == "1")
    #expect(try anyOperation.output.get() == "true")
  }

  @Test func `Retrying`() async throws {
    let operation = MyRetryingOperation()
    operation.retryStrategy = { failureCount in
      return failureCount < 3
    }

    operation.enqueue()
    try await operation.untilFinished()
    #expect(operation.executions.withLock { $0 } == 3)
    #expect(operation.failureCount == 3)

    let none = MyRetryingOperation()
    none.retryStrategy = RetryStrategy.none
    none.enqueue()
    try await none.untilFinished()
    #expect(none.executions.withLock { $0 } == 1)

    let repeating = MyRetryingOperation()
    repeating.retryStrategy = RetryStrategy.repeat(times: 2)
    repeating.enqueue()
    try await repeating.untilFinished()
    #expect(repeating.executions.withLock { $0 } == 3)
  }
}
