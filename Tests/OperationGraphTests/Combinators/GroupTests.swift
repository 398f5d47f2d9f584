import OperationCore
import OperationGraph
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `Group tests` {
  // PeakOperation GroupTests.testGroupOperationSuccess.
  @Test func `A Successful Chain Makes A Successful Group`() async throws {
    let log = ChainLog()
    let group = Step.succeeding("hello", "Hello", log: log).map { $0 + " World!" }.group()
    try await OperationRunner(operation: group).run()
    #expect(log.runs == ["hello"])
  }

  // PeakOperation GroupTests.testGroupOperationFirstFailure.
  @Test func `A Group Whose Input Failed Skips Its Children`() async {
    let log = ChainLog()
    let first = Step<String, StepError>.failing("failing", log: log).map { $0 + "!" }.group()
    let second = Step.succeeding("inner", "inner", log: log).map { $0 + "?" }.group()
    await #expect(throws: StepError(name: "failing")) {
      try await OperationRunner(operation: first.then(second)).run()
    }
    #expect(log.runs == ["failing"])
  }

  // PeakOperation GroupTests.testGroupOperationSecondFailure.
  @Test func `A Failing Last Step Fails The Group`() async {
    let log = ChainLog()
    let group = Step.succeeding("first", 1, log: log)
      .then(Step<Int, StepError>.failing("second", log: log))
      .group()
    await #expect(throws: StepError(name: "second")) {
      try await OperationRunner(operation: group).run()
    }
  }

  // PeakOperation GroupTests.testGroupOperationCancellationCancelsChildren.
  @Test func `Cancelling The Group Cancels Unfinished Steps Only`() async {
    let log = ChainLog()
    let firstResult = Lock<Int?>(nil)
    let held = HeldStep(name: "slow", log: log)
    let group = Step<Int, any Error>(name: "fast", result: .success(1), log: log)
      .map { value in
        firstResult.withLock { $0 = value }
        return value
      }
      .then(held)
      .group()
    let task = Task { try await OperationRunner(operation: group).run() }
    await held.started.wait()
    #expect(firstResult.withLock { $0 } == 1)
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(firstResult.withLock { $0 } == 1)
    #expect(held.sawCancellation.withLock { $0 })
    #expect(log.runs == ["fast", "slow"])
  }

  @Test func `Groups Join Chains Of Different Value Types`() async throws {
    let log = ChainLog()
    let numbers = Step.succeeding("numbers", [1, 2], log: log).group()
    let text = Step.succeeding("text", "a", log: log).map { $0 + "b" }.group()
    try await OperationRunner(operation: numbers.then(text)).run()
    #expect(log.runs == ["numbers", "text"])
  }

  // PeakOperation ProgressTests.testGroupOperationProgress and
  // testGroupOperationCollatingProgress: the group's progress is its chain's.
  @Test func `A Group Collates Its Chain's Progress And Reaches One`() async throws {
    let reporter = ProgressReporter()
    let log = ChainLog(watching: reporter)
    let group = Step.succeeding("a", 1, log: log).then(Step.succeeding("b", 2, log: log)).group()
    var runner = OperationRunner(operation: group)
    runner.context.progressReporter = reporter
    try await runner.run()
    #expect(log.fractionsAtStart == [0, 0.5])
    #expect(reporter.progress.fractionCompleted == 1)
    #expect(reporter.progress.isFinished)
  }

  // PeakOperation ProgressTests.testNestedGroupOperationsCollatingProgress.
  @Test func `Nested Groups Reach Completed Equal To Total`() async throws {
    let reporter = ProgressReporter()
    let log = ChainLog(watching: reporter)
    let a = Step.succeeding("a1", 1, log: log)
      .then(Step.succeeding("a2", 2, log: log))
      .then(Step.succeeding("a3", 3, log: log))
      .group()
    let b = Step.succeeding("b1", 1, log: log)
      .then(Step.succeeding("b2", 2, log: log))
      .then(Step.succeeding("b3", 3, log: log))
      .group()
    var runner = OperationRunner(operation: a.then(b).group())
    runner.context.progressReporter = reporter
    try await runner.run()
    #expect(log.runs == ["a1", "a2", "a3", "b1", "b2", "b3"])
    #expect(isClose(log.fractionsAtStart, [0, 0.16, 0.32, 0.5, 0.66, 0.82]))
    #expect(reporter.progress.completedUnitCount == reporter.progress.totalUnitCount)
    #expect(reporter.progress.fractionCompleted == 1)
  }

  @Test func `A Group Is One Step Of An Enclosing Chain`() async throws {
    let reporter = ProgressReporter()
    let log = ChainLog(watching: reporter)
    let group = Step.succeeding("a1", 1, log: log).then(Step.succeeding("a2", 2, log: log)).group()
    var runner = OperationRunner(operation: group.then(Step.succeeding("b", 3, log: log)))
    runner.context.progressReporter = reporter
    _ = try await runner.run()
    #expect(log.fractionsAtStart == [0, 0.25, 0.5])
  }

  @Test func `A Stateful Group Is A Query With A Group Marker`() async throws {
    let client = OperationClient(storeCreator: PlainChainStoreCreator())
    let log = ChainLog()
    let step = Step.succeeding("a", 1, log: log)
    let group = step.group()
    #expect(group.path == step.path.appending(OperationPath.Element(marker(for: group))))
    try await client.store(for: group).fetch()
    #expect(log.runs == ["a"])
  }

  private func marker(for group: some StatefulOperationRequest) -> OperationChainPathMarker {
    group.path.last!.base as! OperationChainPathMarker
  }
}
