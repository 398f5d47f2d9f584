import OperationCore
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `ManualDelayer tests` {
  @Test func `Delays Last Until Resumed In Request Order`() async throws {
    let delayer = ManualDelayer()
    let first = Task { try await delayer.delay(for: .seconds(1)) }
    await delayer.waitForDelays(count: 1)
    let second = Task { try await delayer.delay(for: .seconds(2)) }
    await delayer.waitForDelays(count: 2)
    #expect(delayer.pendingCount == 2)

    #expect(delayer.resumeNext())
    try await first.value
    #expect(delayer.pendingCount == 1)

    #expect(delayer.resumeAll() == 1)
    try await second.value
    #expect(delayer.delays == [.seconds(1), .seconds(2)])
    #expect(!delayer.resumeNext())
  }

  @Test func `Cancelling A Pending Delay Throws Cancellation Error`() async {
    let delayer = ManualDelayer()
    let task = Task { try await delayer.delay(for: .seconds(1)) }
    await delayer.waitForDelays(count: 1)
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(delayer.pendingCount == 0)
    #expect(delayer.cancelledCount == 1)
  }

  @Test func `A Delay In A Cancelled Task Throws At Once And Is Recorded`() async {
    let delayer = ManualDelayer()
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await delayer.delay(for: .seconds(3))
    }
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(delayer.delays == [.seconds(3)])
    #expect(delayer.pendingCount == 0)
    #expect(delayer.cancelledCount == 1)
  }
}
