import OperationCore
import OperationTestSupport
import Processed
import Testing

@MainActor
@Suite struct `LoadableBinding+OperationRequest tests` {
  @Test func `A Request Loads Its Value`() async {
    let container = LoadableContainer()
    await container.binding.load(operation: NumberRequest(value: 7))
    #expect(container.history == [.absent, .loading, .loaded(7)])
  }

  @Test func `Retries Of The Request Stay Out Of The State`() async {
    let container = LoadableContainer()
    let request = NumberRequest(failures: 1, value: 7)
    let task: Task<Void, Never> = container.binding.load(
      operation: request.retry(limit: 1).delayer(.noDelay)
    )
    await task.value
    #expect(request.attempts.value == 2)
    #expect(container.history == [.absent, .loading, .loaded(7)])
  }

  @Test func `A Silent Load Skips Loading`() async {
    let container = LoadableContainer()
    await container.binding.load(silently: true, operation: NumberRequest(value: 7))
    #expect(container.history == [.absent, .loaded(7)])
  }
}
