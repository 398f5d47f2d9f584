import OperationCore
import OperationTestSupport
import Processed
import Testing

@MainActor
@Suite struct `LoadableSupport+OperationRequest tests` {
  @Test func `A Request Loads Its Value`() async {
    let container = LoadableContainer()
    await container.load(\.loadable, operation: NumberRequest(value: 7))
    #expect(container.history == [.absent, .loading, .loaded(7)])
  }

  @Test func `Retries Of The Request Stay Out Of The State`() async {
    let container = LoadableContainer()
    let request = NumberRequest(failures: 2, value: 7)
    await container.load(\.loadable, operation: request.retry(limit: 2).delayer(.noDelay))
    #expect(request.attempts.value == 3)
    #expect(container.history == [.absent, .loading, .loaded(7)])
  }

  @Test func `A Request That Exhausts Its Retries Sets The Error`() async {
    let container = LoadableContainer()
    let request = NumberRequest(failures: 5)
    await container.load(\.loadable, operation: request.retry(limit: 1).delayer(.noDelay))
    #expect(request.attempts.value == 2)
    #expect(container.loadable.error as? TestError == TestError(message: "Attempt 2"))
  }

  @Test func `A Timed Out Request Sets The Timeout Error`() async {
    let container = LoadableContainer()
    let work = ManualDelayer()
    let timer = ManualDelayer()
    let task: Task<Void, Never> = container.load(
      \.loadable,
      operation: WaitingRequest(work: work).timeout(after: .seconds(5)).delayer(timer)
    )
    await timer.waitForDelays(count: 1)
    await work.waitForDelays(count: 1)
    timer.resumeNext()
    await task.value
    #expect(container.history == [.absent, .loading, .error(TestError())])
    #expect(
      container.loadable.error as? OperationTimeoutError
        == OperationTimeoutError(duration: .seconds(5))
    )
    #expect(work.cancelledCount == 1)
  }

  @Test func `Yielded Results Set Loaded And Error States`() async {
    let container = LoadableContainer()
    let request = NumberRequest(
      yields: [.success(1), .failure(TestError()), .success(2)],
      value: 3
    )
    await container.load(\.loadable, operation: request)
    #expect(
      container.history == [
        .absent, .loading, .loaded(1), .error(TestError()), .loaded(2), .loaded(3),
      ]
    )
  }

  @Test func `Cancel Cancels The Request And Leaves Loading`() async {
    let container = LoadableContainer()
    let work = ManualDelayer()
    let task: Task<Void, Never> = container.load(\.loadable, operation: WaitingRequest(work: work))
    await work.waitForDelays(count: 1)
    container.cancel(\.loadable)
    #expect(work.cancelledCount == 1)
    await task.value
    #expect(container.history == [.absent, .loading])
  }

  @Test func `The Context Reaches The Request`() async {
    let container = LoadableContainer()
    var context = OperationContext()
    context.testNumber = 9
    await container.load(\.loadable, operation: ContextReadingRequest(), context: context)
    #expect(container.history == [.absent, .loading, .loaded(9)])
  }
}
