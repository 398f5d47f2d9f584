import Foundation
import OperationCore
import OperationGraph
import OperationQueueCompat
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `DelayOperation tests` {
  @Test func `The names say how long or until when`() {
    #expect(DelayOperation(interval: 1).name == "Delay for 1.0 seconds")
    let date = Date(timeIntervalSince1970: 0)
    #expect(DelayOperation(date: date).name == "Delay until \(date)")
    #expect(DelayOperation(duration: .milliseconds(1500)).name == "Delay for 1.5 seconds")
  }

  @Test func `A negative interval or a past date finishes at once without asking the delayer`()
    async throws
  {
    let delayer = RecordingDelayer()
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 1_000))
    let negative = DelayOperation(interval: -1)
    let past = DelayOperation(date: Date(timeIntervalSince1970: 999))
    for operation in [negative, past] {
      operation.context.operationDelayer = delayer
      operation.context.operationClock = clock
    }
    let queue = OperationQueue()
    queue.addOperation(negative)
    queue.addOperation(past)
    try await negative.untilFinished()
    try await past.untilFinished()
    #expect(delayer.delays.isEmpty)
  }

  @Test func `It waits its interval through the context's delayer and finishes without error`()
    async throws
  {
    let delayer = ManualDelayer()
    let delay = DelayOperation(interval: 2)
    delay.context.operationDelayer = delayer
    OperationQueue().addOperation(delay)
    await delayer.waitForDelays(count: 1)
    #expect(delayer.delays == [.seconds(2)])
    #expect(!delay.isFinished)
    delayer.resumeAll()
    try await delay.untilFinished()
    #expect(delay.errors.isEmpty)
  }

  @Test func `A future date waits the time left on the context's clock`() async throws {
    let delayer = ManualDelayer()
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 100))
    let delay = DelayOperation(date: Date(timeIntervalSince1970: 103))
    delay.context.operationDelayer = delayer
    delay.context.operationClock = clock
    OperationQueue().addOperation(delay)
    await delayer.waitForDelays(count: 1)
    #expect(delayer.delays == [.seconds(3)])
    delayer.resumeAll()
    try await delay.untilFinished()
  }

  @Test func `Cancelling stops the wait and finishes the operation`() async throws {
    let delayer = ManualDelayer()
    let delay = DelayOperation(interval: 60)
    delay.context.operationDelayer = delayer
    OperationQueue().addOperation(delay)
    await delayer.waitForDelays(count: 1)
    delay.cancel()
    await #expect(throws: CancellationError.self) { try await delay.untilFinished() }
    #expect(delay.isFinished)
    #expect(delayer.pendingCount == 0)
  }
}
