import OperationTestSupport
import Processed
import Testing

// The rules of a run, which `ProcessBinding` shares with every way to drive a state, are tested
// once for all of them in `StateControllerTests` and `InterruptsTests`.

@MainActor
@Suite struct `ProcessBinding tests` {
  @Test func `A Single Process Run Starts A New Process`() async {
    let container = ProcessContainer()
    await container.binding.run {}
    #expect(container.process.hasFinished)
    #expect(container.history.count == 3)
  }

  @Test func `A Constant Binding Keeps Its State`() async {
    let binding = ProcessBinding.constant(SingleProcessState.idle)
    await binding.run {}
    #expect(binding.wrappedValue == .idle)
  }
}
