import OperationCore
import OperationSynchronization
import Testing

@Suite struct `OperationContinuation tests` {
  @Test func `A Continuation Gives Its Closure Each Result With The Context It Was Yielded With`() {
    let received = Lock([String]())
    let continuation = OperationContinuation<Int, TestError> { result, context in
      received.withLock { $0.append(Self.describe(result, context)) }
    }
    var context = OperationContext()
    context.operationTaskConfiguration.name = "Yield"
    continuation.yield(1)
    continuation.yield(error: TestError(), using: context)
    continuation.yield(with: .success(3), using: context)
    #expect(received.withLock { $0 } == ["1 in nil", "error in Yield", "3 in Yield"])
  }

  @Test func `A Continuation Gives Its Receiver Each Result With The Context It Was Yielded With`()
  {
    let receiver = RecordingReceiver()
    let continuation = OperationContinuation<Int, TestError>(receiver: receiver)
    var context = OperationContext()
    context.operationTaskConfiguration.name = "Yield"
    continuation.yield(1)
    continuation.yield(error: TestError(), using: context)
    continuation.yield(with: .success(3), using: context)
    #expect(receiver.received.withLock { $0 } == ["1 in nil", "error in Yield", "3 in Yield"])
  }

  fileprivate static func describe(
    _ result: Result<Int, TestError>,
    _ context: OperationContext?
  ) -> String {
    let value =
      switch result {
      case .success(let value): "\(value)"
      case .failure: "error"
      }
    return "\(value) in \(context?.operationTaskConfiguration.name ?? "nil")"
  }
}

private final class RecordingReceiver: OperationResultReceiver {
  let received = Lock([String]())

  func receive(_ result: sending Result<Int, TestError>, context: OperationContext?) {
    let description = `OperationContinuation tests`.describe(result, context)
    self.received.withLock { $0.append(description) }
  }
}
