import Foundation
import OperationCore
import OperationGraph
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `DelayRequest tests` {
  // MARK: - Operations DelayOperationTests

  @Test func `Names Say What The Request Waits For`() {
    #expect(DelayRequest(for: .seconds(1)).name == "Delay for 1.0 seconds")
    #expect(DelayRequest(for: .milliseconds(1500)).name == "Delay for 1.5 seconds")
    #expect(
      DelayRequest(until: Date(timeIntervalSince1970: 0)).name
        == "Delay until 1970-01-01T00:00:00Z"
    )
  }

  @Test(arguments: [OperationDuration.zero, .seconds(-2), .milliseconds(-1)])
  func `A Zero Or Negative Interval Finishes At Once`(duration: OperationDuration) async throws {
    let delayer = RecordingDelayer()
    try await Self.run(DelayRequest(for: duration), delayer: delayer)
    #expect(delayer.delays.isEmpty)
  }

  @Test func `A Date In The Distant Past Finishes At Once`() async throws {
    let delayer = RecordingDelayer()
    try await Self.run(DelayRequest(until: .distantPast), delayer: delayer)
    #expect(delayer.delays.isEmpty)
  }

  @Test func `Finishes Only After The Interval`() async throws {
    let delayer = ManualDelayer()
    let finished = WorkRecorder<Bool>()
    let task = Task {
      try await Self.run(DelayRequest(for: .seconds(1)), delayer: delayer)
      finished.append(true)
    }
    await delayer.waitForDelays(count: 1)
    #expect(finished.all.isEmpty)
    #expect(delayer.resumeNext())
    try await task.value
    #expect(finished.all == [true])
    #expect(delayer.delays == [.seconds(1)])
  }

  @Test func `Waits Until The Date By The Context's Clock`() async throws {
    let delayer = RecordingDelayer()
    try await Self.run(
      DelayRequest(until: Date(timeIntervalSince1970: 1_060)),
      delayer: delayer,
      clock: ManualOperationClock(date: Date(timeIntervalSince1970: 1_000))
    )
    #expect(delayer.delays == [.seconds(60)])
  }

  // MARK: - Cancellation and overloads

  @Test func `Cancellation During The Wait Throws CancellationError`() async {
    let delayer = ManualDelayer()
    let task = Task { try await Self.run(DelayRequest(for: .seconds(10)), delayer: delayer) }
    await delayer.waitForDelays(count: 1)
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(delayer.cancelledCount == 1)
  }

  @Test func `A Swift Duration Waits As Long`() async throws {
    let delayer = RecordingDelayer()
    let request = DelayRequest(for: Duration.milliseconds(250))
    try await Self.run(request, delayer: delayer)
    #expect(request == DelayRequest(for: .milliseconds(250)))
    #expect(delayer.delays == [.milliseconds(250)])
  }

  private static func run(
    _ request: DelayRequest,
    delayer: some OperationDelayer & Sendable,
    clock: some OperationClock & Sendable = ManualOperationClock()
  ) async throws(CancellationError) {
    var context = OperationContext()
    context.operationDelayer = delayer
    context.operationClock = clock
    try await OperationRunner(operation: request, initialContext: context).run()
  }
}
