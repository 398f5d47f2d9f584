import OperationCore
import OperationTestSupport
import Processed
import Testing

@MainActor
@Suite struct `ProcessBinding+OperationRequest tests` {
  let process = SingleProcess(id: "1")

  @Test func `A Request Runs The Process`() async {
    let container = ProcessContainer()
    await container.binding.run(self.process, operation: NumberRequest())
    #expect(container.history == [.idle, .running(self.process), .finished(self.process)])
  }

  @Test func `Cancel Cancels The Request And Leaves Running`() async {
    let container = ProcessContainer()
    let work = ManualDelayer()
    let task: Task<Void, Never> = container.binding.run(
      self.process,
      operation: WaitingRequest(work: work)
    )
    await work.waitForDelays(count: 1)
    container.binding.cancel()
    #expect(work.cancelledCount == 1)
    await task.value
    #expect(container.history == [.idle, .running(self.process)])
  }
}
