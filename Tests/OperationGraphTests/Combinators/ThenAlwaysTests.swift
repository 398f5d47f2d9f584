import OperationCore
import OperationGraph
import OperationTestSupport
import Testing

@Suite struct `ThenAlways tests` {
  @Test func `Runs The Next Request After A Failure And Returns Its Result`() async throws {
    let log = ChainLog()
    let chain = Step<Int, StepError>.failing("a", log: log)
      .then(always: Step<String, Never>(name: "b", result: .success("b"), log: log))
    #expect(failureType(of: chain) == ObjectIdentifier(Never.self))
    #expect(await OperationRunner(operation: chain).run() == "b")
    #expect(log.runs == ["a", "b"])
  }

  @Test func `Throws The Next Request's Failure`() async {
    let log = ChainLog()
    let chain = Step.succeeding("a", 1, log: log).then(
      always: Step<Int, StepError>.failing("b", log: log)
    )
    await #expect(throws: StepError(name: "b")) {
      try await OperationRunner(operation: chain).run()
    }
  }

  // PeakOperation ProgressTests.testOperationProgress: op1 → op2 → op3 (fails) → op4 reaches 1.
  @Test func `A Chain With A Failing Step Runs Every Step And Reaches One`() async throws {
    let reporter = ProgressReporter()
    let log = ChainLog(watching: reporter)
    let chain = Step.succeeding("op1", 1, log: log)
      .then(always: Step.succeeding("op2", 2, log: log))
      .then(always: Step<Int, StepError>.failing("op3", log: log))
      .then(always: Step.succeeding("op4", 4, log: log))
    var runner = OperationRunner(operation: chain)
    runner.context.progressReporter = reporter
    #expect(try await runner.run() == 4)
    #expect(log.runs == ["op1", "op2", "op3", "op4"])
    #expect(log.fractionsAtStart == [0, 0.25, 0.5, 0.75])
    #expect(reporter.progress == OperationProgress(completedUnitCount: 100, totalUnitCount: 100))
  }

  @Test func `A Cancelled Task Does Not Start The Next Request`() async {
    let log = ChainLog()
    let held = HeldStep(name: "a", log: log)
    let chain = held.then(always: Step<Int, any Error>(name: "b", result: .success(2), log: log))
    let task = Task { try await OperationRunner(operation: chain).run() }
    await held.started.wait()
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(log.runs == ["a"])
  }

  @Test func `Path Has A Then Always Marker`() {
    let log = ChainLog()
    let chain = Step.succeeding("a", 1, log: log).then(always: Step.succeeding("b", 2, log: log))
    #expect(marker(at: 2, of: chain.path)?.kind == .thenAlways)
    #expect(marker(at: 2, of: chain.path)?.description == "thenAlways")
  }
}
