import OperationCore
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `MutationEventHandler tests` {
  private typealias State = MutationState<String, Int, any Error>

  @Test func `Its Operation Handler Reads The Arguments And Unwraps Results`() {
    let received = Lock([String]())
    let handler = MutationEventHandler<State>(
      onMutatingStarted: { arguments, _ in received.withLock { $0.append("started \(arguments)") }
      },
      onMutationResultReceived: { arguments, result, _ in
        received.withLock { $0.append("result \(arguments) \((try? result.get()) ?? -1)") }
      },
      onMutatingEnded: { arguments, _ in received.withLock { $0.append("ended \(arguments)") } }
    )
    var context = OperationContext()
    context.setMutationArguments("a")
    let operationHandler = handler.operationEventHandler
    operationHandler.onRunStarted?(context)
    operationHandler.onResultReceived?(.success(MutationOperationValue(returnValue: 3)), context)
    operationHandler.onRunEnded?(context)
    #expect(received.withLock { $0 } == ["started a", "result a 3", "ended a"])
  }

  @Test func `Events Without Arguments Are Skipped`() {
    let calls = CallCounter()
    let handler = MutationEventHandler<State>(
      onMutatingStarted: { _, _ in calls.increment() },
      onMutationResultReceived: { _, _, _ in calls.increment() },
      onMutatingEnded: { _, _ in calls.increment() }
    )
    var otherArguments = OperationContext()
    otherArguments.setMutationArguments(42)
    for context in [OperationContext(), otherArguments] {
      handler.operationEventHandler.onRunStarted?(context)
      handler.operationEventHandler.onResultReceived?(.failure(TestError()), context)
      handler.operationEventHandler.onRunEnded?(context)
    }
    #expect(calls.value == 0)
  }

  @Test func `Missing Callbacks Stay Missing`() {
    let handler = MutationEventHandler<State>(onStateChanged: { _, _ in })
    let operationHandler = handler.operationEventHandler
    #expect(operationHandler.onStateChanged != nil)
    #expect(operationHandler.onRunStarted == nil)
    #expect(operationHandler.onResultReceived == nil)
    #expect(operationHandler.onRunEnded == nil)
  }
}
