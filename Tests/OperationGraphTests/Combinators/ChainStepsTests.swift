import OperationCore
import OperationGraph
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `ChainSteps tests` {
  enum Nesting: CaseIterable {
    case left
    case right
  }

  @Test(arguments: Nesting.allCases)
  func `Chained Steps Share The Units Evenly Whatever The Nesting`(nesting: Nesting) async throws {
    let reporter = ProgressReporter()
    let log = ChainLog(watching: reporter)
    let a = Step.succeeding("a", 1, log: log)
    let b = Step.succeeding("b", 2, log: log)
    let c = Step.succeeding("c", 3, log: log)
    var context = OperationContext()
    context.progressReporter = reporter
    switch nesting {
    case .left: _ = try await OperationRunner(operation: a.then(b).then(c)).run(in: context)
    case .right: _ = try await OperationRunner(operation: a.then(b.then(c))).run(in: context)
    }
    #expect(log.fractionsAtStart == [0, 0.33, 0.66])
    #expect(reporter.progress.isFinished)
  }

  @Test func `Each Step Runs With A Child Of The Reporter`() async throws {
    let reporter = ProgressReporter()
    let log = ChainLog()
    let chain = Step.succeeding("a", 1, log: log).then(Step.succeeding("b", 2, log: log))
    var runner = OperationRunner(operation: chain)
    runner.context.progressReporter = reporter
    _ = try await runner.run()
    let reporters = log.stepReporters.compactMap { $0 }
    #expect(reporters.count == 2)
    #expect(reporters.allSatisfy { $0 !== reporter && $0.progress.isFinished })
    #expect(reporters[0] !== reporters[1])
  }

  @Test func `Without A Reporter Steps Get None`() async throws {
    let log = ChainLog()
    let chain = Step.succeeding("a", 1, log: log).then(Step.succeeding("b", 2, log: log))
    _ = try await OperationRunner(operation: chain).run()
    #expect(log.stepReporters.count == 2)
    #expect(log.stepReporters.allSatisfy { $0 == nil })
  }

  @Test func `A Step's Partial Progress Reaches The Root`() async throws {
    let reporter = ProgressReporter()
    let log = ChainLog()
    let seen = Lock<Double?>(nil)
    var first = Step.succeeding("a", 1, log: log)
    first.onRun = { context in
      context.progressReporter?.report(fractionCompleted: 0.5)
      seen.withLock { $0 = reporter.progress.fractionCompleted }
    }
    var runner = OperationRunner(operation: first.then(Step.succeeding("b", 2, log: log)))
    runner.context.progressReporter = reporter
    _ = try await runner.run()
    #expect(seen.withLock { $0 } == 0.25)
  }

  @Test func `A Failed Chain Counts The Skipped Steps As Done`() async {
    let reporter = ProgressReporter()
    let log = ChainLog()
    let chain = Step<Int, StepError>.failing("a", log: log)
      .then(Step.succeeding("b", 2, log: log))
      .then(Step.succeeding("c", 3, log: log))
    var runner = OperationRunner(operation: chain)
    runner.context.progressReporter = reporter
    _ = try? await runner.run()
    #expect(log.runs == ["a"])
    #expect(reporter.progress == OperationProgress(completedUnitCount: 100, totalUnitCount: 100))
  }

  @Test func `A Modified Chain Counts As One Step`() async throws {
    let reporter = ProgressReporter()
    let log = ChainLog(watching: reporter)
    let inner = Step.succeeding("a", 1, log: log).then(Step.succeeding("b", 2, log: log))
      .retry(limit: 0)
    var runner = OperationRunner(operation: inner.then(Step.succeeding("c", 3, log: log)))
    runner.context.progressReporter = reporter
    _ = try await runner.run()
    #expect(log.fractionsAtStart == [0, 0.25, 0.5])
  }

  @Test func `An Entry That Only One Part Writes Is Visible To The Others`() async throws {
    let log = ChainLog()
    let retries = Lock<Int?>(nil)
    var second = Step.succeeding("b", 2, log: log)
    second.onRun = { context in retries.withLock { $0 = context.operationMaxRetries } }
    let chain = Step.succeeding("a", 1, log: log).retry(limit: 4).then(second)
    _ = try await OperationRunner(operation: chain).run()
    #expect(retries.withLock { $0 } == 4)
  }
}
