import OperationCore
import OperationGraph
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `FlatMap tests` {
  // PeakOperation ResultTests.testInjectionPassing, through requests that take the result.
  @Test func `Runs The Request Made From The Value`() async throws {
    let log = ChainLog()
    let chain = Step.succeeding("flag", true, log: log)
      .flatMap { flag in Step.succeeding("negate", !flag, log: log) }
      .flatMap { flag in Step.succeeding("describe", String(flag), log: log) }
    #expect(try await OperationRunner(operation: chain).run() == "false")
    #expect(log.runs == ["flag", "negate", "describe"])
  }

  @Test func `A Failure Short Circuits Without Making The Next Request`() async {
    let log = ChainLog()
    let made = Lock(0)
    let chain = Step<Int, StepError>.failing("a", log: log).flatMap { value in
      made.withLock { $0 += 1 }
      return Step.succeeding("b", value, log: log)
    }
    await #expect(throws: StepError(name: "a")) {
      try await OperationRunner(operation: chain).run()
    }
    #expect(made.withLock { $0 } == 0)
  }

  @Test func `Widens Different Failures To Any Error`() async throws {
    let log = ChainLog()
    let chain = Step.succeeding("a", 1, log: log).flatMap { value in
      Step<Int, any Error>(name: "b", result: .success(value + 1), log: log)
    }
    #expect(failureType(of: chain) == ObjectIdentifier((any Error).self))
    #expect(try await OperationRunner(operation: chain).run() == 2)
  }

  @Test func `The Next Request's Setup Prepares Its Run`() async throws {
    let log = ChainLog()
    let chain = Step.succeeding("a", 1, log: log).flatMap { value in
      Step.succeeding("b", value, log: log)
    }
    let runner = OperationRunner(operation: chain)
    #expect(log.setups == ["a"])
    _ = try await runner.run()
    #expect(log.setups == ["a", "a", "b"])
  }

  @Test func `Forwards What The Next Request Yields`() async throws {
    let log = ChainLog()
    let yielded = Lock([Int]())
    let continuation = OperationContinuation<Int, StepError> { result, _ in
      if case .success(let value) = result {
        yielded.withLock { $0.append(value) }
      }
    }
    var first = Step.succeeding("a", 1, log: log)
    first.yields = [0]
    let chain = first.flatMap { value in
      var next = Step.succeeding("b", value, log: log)
      next.yields = [7]
      return next
    }
    _ = try await OperationRunner(operation: chain).run(with: continuation)
    #expect(yielded.withLock { $0 } == [7])
  }

  @Test func `Is A Query With The Call Site In Its Path When Both Parts Are`() async throws {
    let client = OperationClient(storeCreator: PlainChainStoreCreator())
    let log = ChainLog()
    let chain = Step.succeeding("a", 1, log: log).flatMap { Step.succeeding("b", $0 * 3, log: log) }
    #expect(marker(at: 2, of: chain.path)?.kind == .flatMap)
    #expect(try await client.store(for: chain).fetch() == 3)
  }
}
