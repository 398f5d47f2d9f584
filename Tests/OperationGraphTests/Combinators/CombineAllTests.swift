import OperationCore
import OperationGraph
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `CombineAll tests` {
  // PeakOperation ResultTests.testPassingMultipleResultsIntoAnOperation.
  @Test func `Returns Every Value In The Order Of The Requests`() async throws {
    let log = ChainLog()
    let combined = combineAll([
      Step.succeeding("a", "first", log: log), Step.succeeding("b", "second", log: log),
    ])
    #expect(try await OperationRunner(operation: combined).run() == ["first", "second"])
  }

  @Test func `Keeps The Order Of The Requests When They Finish In Another Order`() async throws {
    let log = ChainLog()
    var first = HeldStep(name: "first", log: log)
    first.value = 1
    var second = HeldStep(name: "second", log: log)
    second.value = 2
    let combined = combineAll(first, second)
    let task = Task { try await OperationRunner(operation: combined).run() }
    await first.started.wait()
    await second.started.wait()
    second.release.open()
    await second.finished.wait()
    first.release.open()
    #expect(try await task.value == [1, 2])
  }

  // PeakOperation ResultTests.testPassingAResultIntoMultipleOperations.
  @Test func `Fans One Result Out To Several Maps`() async throws {
    let log = ChainLog()
    let hello = Step.succeeding("hello", "hello", log: log)
    let combined = [hello.map { $0 + " my name is sam" }, hello.map { $0 + " world" }]
      .combineAll()
    let values = try await OperationRunner(operation: combined).run()
    #expect(values == ["hello my name is sam", "hello world"])
  }

  @Test func `No Request Throws No Result`() async {
    let combined = combineAll([Step<Int, StepError>]())
    await #expect {
      try await OperationRunner(operation: combined).run()
    } throws: { error in
      guard case .noResult = error as? OperationChainError else { return false }
      return true
    }
  }

  @Test func `Any Failure Throws One Error Carrying All Failures In Order`() async {
    let log = ChainLog()
    let combined = combineAll(
      Step<Int, StepError>.failing("a", log: log),
      Step.succeeding("b", 2, log: log),
      Step<Int, StepError>.failing("c", log: log)
    )
    await #expect {
      try await OperationRunner(operation: combined).run()
    } throws: { error in
      guard case .combinedFailure(let errors) = error as? OperationChainError else { return false }
      return errors.map { $0 as? StepError } == [StepError(name: "a"), StepError(name: "c")]
    }
    #expect(Set(log.runs) == ["a", "b", "c"])
  }

  @Test func `Splits Its Progress Evenly Over The Requests`() async throws {
    let reporter = ProgressReporter()
    let log = ChainLog()
    let first = HeldStep(name: "first", log: log)
    let second = HeldStep(name: "second", log: log)
    var runner = OperationRunner(operation: combineAll(first, second))
    runner.context.progressReporter = reporter
    let task = Task { [runner] in try await runner.run() }
    await first.started.wait()
    await second.started.wait()
    first.release.open()
    await waitUntil(reporter, reaches: 0.5)
    #expect(reporter.progress.completedUnitCount == 50)
    second.release.open()
    _ = try await task.value
    #expect(reporter.progress.isFinished)
  }

  @Test func `Cancellation Reaches Every Request`() async {
    let log = ChainLog()
    let first = HeldStep(name: "first", log: log)
    let second = HeldStep(name: "second", log: log)
    let task = Task { try await OperationRunner(operation: combineAll(first, second)).run() }
    await first.started.wait()
    await second.started.wait()
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(first.sawCancellation.withLock { $0 })
    #expect(second.sawCancellation.withLock { $0 })
  }

  @Test func `Equal Combinations Share A Store Whose Path Lists The Parts`() async throws {
    let client = OperationClient(storeCreator: PlainChainStoreCreator())
    let log = ChainLog()
    let parts = [Step.succeeding("a", 1, log: log), Step.succeeding("b", 2, log: log)]
    let store = client.store(for: combineAll(parts))
    #expect(client.store(for: parts.combineAll()) === store)
    let path = combineAll(parts).path
    #expect(marker(at: 0, of: path)?.kind == .combineAll)
    #expect(Array(path.dropFirst()) == parts.map { OperationPath.Element($0.path) })
    #expect(try await store.fetch() == [1, 2])
  }
}
