import OperationCore
import OperationGraph
import OperationTestSupport
import Testing

@Suite struct `MapResult tests` {
  // PeakOperation MapTests.testMapOperationOverrideMapResultSuccess.
  @Test func `Receives A Success`() async {
    let log = ChainLog()
    let mapped = Step.succeeding("flag", true, log: log).mapResult { result in
      result.map { !$0 }
    }
    #expect(failureType(of: mapped) == ObjectIdentifier(Never.self))
    let value = await OperationRunner(operation: mapped).run()
    #expect(value == .success(false))
  }

  // PeakOperation MapTests.testMapOperationOverrideMapResultFailure.
  @Test func `Maps Any Failure To Its Own Error`() async {
    let log = ChainLog()
    let mapped = Step<Bool, StepError>.failing("flag", log: log).mapResult {
      result throws(StepError) in
      guard case .success(let value) = result else { throw StepError(name: "alsoATest") }
      return !value
    }
    await #expect(throws: StepError(name: "alsoATest")) {
      try await OperationRunner(operation: mapped).run()
    }
  }

  @Test func `Always Runs And Sees The Failure As A Value`() async {
    let log = ChainLog()
    let mapped = Step<Int, StepError>.failing("a", log: log).mapResult { result in
      switch result {
      case .success(let value): "value \(value)"
      case .failure(let error): "failed \(error.name)"
      }
    }
    #expect(await OperationRunner(operation: mapped).run() == "failed a")
  }

  // PeakOperation ResultTests.testCancelledOperationPassesNoInput: the consumer of a cancelled
  // producer still runs, and its input is a failure.
  @Test func `A Cancelled Request Passes Its Cancellation To The Transform`() async {
    let log = ChainLog()
    let held = HeldStep(name: "producer", log: log)
    let mapped = held.mapResult { result in
      switch result {
      case .success: "value"
      case .failure(let error): error is CancellationError ? "cancelled" : "failed"
      }
    }
    let task = Task { await OperationRunner(operation: mapped).run() }
    await held.started.wait()
    task.cancel()
    #expect(await task.value == "cancelled")
  }

  @Test func `Path Has A Map Result Marker With The Call Site`() {
    let log = ChainLog()
    let mapped = Step.succeeding("a", 1, log: log).mapResult { _ in 0 }
    #expect(marker(at: 2, of: mapped.path)?.kind == .mapResult)
    #expect(marker(at: 2, of: mapped.path)?.fileID == #fileID)
  }
}
