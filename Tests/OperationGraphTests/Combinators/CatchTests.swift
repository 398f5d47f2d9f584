import OperationCore
import OperationGraph
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `Catch tests` {
  // PeakOperation's passesError: the failure goes to the next operation.
  @Test func `Runs A Fallback Request Made From The Failure`() async throws {
    let log = ChainLog()
    let chain = Step<String, StepError>.failing("live", log: log).catch { error in
      Step<String, Never>(name: "cached", result: .success("cached after \(error.name)"), log: log)
    }
    #expect(failureType(of: chain) == ObjectIdentifier(Never.self))
    #expect(await OperationRunner(operation: chain).run() == "cached after live")
    #expect(log.runs == ["live", "cached"])
  }

  @Test func `A Success Passes Through Without Making The Fallback`() async throws {
    let log = ChainLog()
    let made = Lock(0)
    let chain = Step.succeeding("live", 1, log: log).catch { _ in
      made.withLock { $0 += 1 }
      return Step.succeeding("cached", 2, log: log)
    }
    #expect(try await OperationRunner(operation: chain).run() == 1)
    #expect(made.withLock { $0 } == 0)
  }

  @Test func `Throws The Fallback's Failure`() async {
    let log = ChainLog()
    let chain = Step<Int, StepError>.failing("live", log: log).catch { _ in
      Step<Int, StepError>.failing("cached", log: log)
    }
    await #expect(throws: StepError(name: "cached")) {
      try await OperationRunner(operation: chain).run()
    }
  }

  @Test func `Replaces A Failure With A Value`() async {
    let log = ChainLog()
    let chain = Step<[Int], StepError>.failing("posts", log: log).catch { _ in [Int]() }
    #expect(failureType(of: chain) == ObjectIdentifier(Never.self))
    #expect(await OperationRunner(operation: chain).run() == [])
  }

  @Test func `A Recovery May Throw Its Own Error`() async {
    struct Unrecoverable: Error, Equatable {}
    let log = ChainLog()
    let chain = Step<Int, StepError>.failing("a", log: log).catch { _ throws(Unrecoverable) in
      throw Unrecoverable()
    }
    await #expect(throws: Unrecoverable()) { try await OperationRunner(operation: chain).run() }
  }

  @Test func `Counts The Unneeded Fallback As Done`() async throws {
    let reporter = ProgressReporter()
    let log = ChainLog()
    let chain = Step.succeeding("live", 1, log: log).catch { _ in
      Step.succeeding("cached", 2, log: log)
    }
    var runner = OperationRunner(operation: chain)
    runner.context.progressReporter = reporter
    _ = try await runner.run()
    #expect(reporter.progress.isFinished)
  }

  @Test func `Both Forms Have A Catch Marker With The Call Site`() {
    let log = ChainLog()
    let step = Step.succeeding("a", 1, log: log)
    let withRequest = step.catch { _ in Step.succeeding("b", 2, log: log) }
    let withValue = step.catch { _ in 0 }
    #expect(marker(at: 2, of: withRequest.path)?.kind == .catch)
    #expect(marker(at: 2, of: withValue.path)?.kind == .catch)
    #expect(withRequest.path != withValue.path)
  }
}
