import OperationCore
import OperationGraph
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `AnyErrorOperation tests` {
  @Test func `Keeps The Paths Of The Parts`() {
    let log = ChainLog()
    let typed = Step.succeeding("a", 1, log: log)
    let untyped = Step<Int, any Error>(name: "b", result: .success(2), log: log)
    let chain = typed.then(untyped)
    #expect(chain.first.path == typed.path)
    #expect(chain.second.path == untyped.path)
    #expect(chain.path == typed.then(Step.succeeding("b", 2, log: log)).path)
  }

  @Test func `Forwards Yields With Errors Widened`() async throws {
    let log = ChainLog()
    var untyped = Step<Int, any Error>(name: "b", result: .success(2), log: log)
    untyped.yields = [9]
    let yielded = Lock([Int]())
    let continuation = OperationContinuation<Int, any Error> { result, _ in
      if case .success(let value) = result {
        yielded.withLock { $0.append(value) }
      }
    }
    let chain = Step.succeeding("a", 1, log: log).then(untyped)
    _ = try await OperationRunner(operation: chain).run(with: continuation)
    #expect(yielded.withLock { $0 } == [9])
  }

  @Test func `Keeps The Steps Of The Parts For Progress`() async throws {
    let reporter = ProgressReporter()
    let log = ChainLog(watching: reporter)
    let typed = Step.succeeding("a", 1, log: log).then(Step.succeeding("b", 2, log: log))
    let untyped = Step<Int, any Error>(name: "c", result: .success(3), log: log)
    var runner = OperationRunner(operation: typed.then(untyped))
    runner.context.progressReporter = reporter
    _ = try await runner.run()
    #expect(log.fractionsAtStart == [0, 0.33, 0.66])
  }

  @Test func `Sets Up The Base Request`() {
    let log = ChainLog()
    let untyped = Step<Int, any Error>(name: "b", result: .success(2), log: log)
    _ = OperationRunner(operation: Step.succeeding("a", 1, log: log).then(untyped))
    #expect(log.setups == ["a", "b"])
  }
}
