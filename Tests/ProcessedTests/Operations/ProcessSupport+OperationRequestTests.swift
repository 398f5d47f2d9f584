import OperationCore
import OperationTestSupport
import Processed
import Testing

@MainActor
@Suite struct `ProcessSupport+OperationRequest tests` {
  let process = SingleProcess(id: "1")

  @Test func `A Request Runs The Process`() async {
    let container = ProcessContainer()
    await container.run(\.process, as: self.process, operation: NumberRequest())
    #expect(container.history == [.idle, .running(self.process), .finished(self.process)])
  }

  @Test func `Retries Of The Request Stay Out Of The State`() async {
    let container = ProcessContainer()
    let request = NumberRequest(failures: 1)
    await container.run(
      \.process,
      as: self.process,
      operation: request.retry(limit: 1).delayer(.noDelay)
    )
    #expect(request.attempts.value == 2)
    #expect(container.history == [.idle, .running(self.process), .finished(self.process)])
  }

  @Test func `A Failing Request Fails The Process`() async {
    let container = ProcessContainer()
    let task: Task<Void, Never> = container.run(
      \.process,
      as: self.process,
      operation: NumberRequest(failures: 1)
    )
    await task.value
    #expect(
      container.history == [
        .idle, .running(self.process), .failed(process: self.process, error: TestError()),
      ]
    )
  }
}
