import OperationCore
import OperationGraph
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `MapError tests` {
  private struct Wrapped: Error, Equatable {
    let underlying: StepError
  }

  // PeakOperation MapTests.testMapOperationOverrideMapResultFailure, with an error map.
  @Test func `Transforms The Failure`() async {
    let log = ChainLog()
    let mapped = Step<Int, StepError>.failing("a", log: log).mapError { Wrapped(underlying: $0) }
    #expect(failureType(of: mapped) == ObjectIdentifier(Wrapped.self))
    await #expect(throws: Wrapped(underlying: StepError(name: "a"))) {
      try await OperationRunner(operation: mapped).run()
    }
  }

  @Test func `A Success Passes Through`() async throws {
    let log = ChainLog()
    let mapped = Step.succeeding("a", 1, log: log).mapError { Wrapped(underlying: $0) }
    #expect(try await OperationRunner(operation: mapped).run() == 1)
  }

  @Test func `Forwards Yields And Transforms Yielded Errors`() async throws {
    let log = ChainLog()
    var step = Step.succeeding("a", 1, log: log)
    step.yields = [5]
    let yielded = Lock([Result<Int, Wrapped>]())
    let continuation = OperationContinuation<Int, Wrapped> { result, _ in
      yielded.withLock { $0.append(result) }
    }
    let mapped = step.mapError { Wrapped(underlying: $0) }
    _ = try await OperationRunner(operation: mapped).run(with: continuation)
    #expect(yielded.withLock { $0 } == [.success(5)])
  }

  @Test func `Path Has A Map Error Marker`() {
    let log = ChainLog()
    let mapped = Step.succeeding("a", 1, log: log).mapError { Wrapped(underlying: $0) }
    #expect(marker(at: 2, of: mapped.path)?.kind == .mapError)
  }
}
