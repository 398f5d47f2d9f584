import Foundation
import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `DelayedUntil tests` {
  @Test func `Waits From The Clock's Date Until The Date`() async throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 100))
    let delayer = RecordingDelayer()
    let query = WorkScriptedQuery.failing(untilRun: 1)
    var runner = OperationRunner(
      operation: query.delayed(until: Date(timeIntervalSince1970: 110)).delayer(delayer)
    )
    runner.context.operationClock = clock
    #expect(try await runner.run() == 1)
    #expect(delayer.delays == [.seconds(10)])
  }

  @Test(arguments: [100.0, 99.5, -1_000_000.0])
  func `A Date That Has Come Runs At Once Without Asking The Delayer`(
    seconds: TimeInterval
  ) async throws {
    let delayer = RecordingDelayer()
    let query = WorkScriptedQuery.failing(untilRun: 1)
    var runner = OperationRunner(
      operation: query.delayed(until: Date(timeIntervalSince1970: seconds)).delayer(delayer)
    )
    runner.context.operationClock = ManualOperationClock(date: Date(timeIntervalSince1970: 100))
    #expect(try await runner.run() == 1)
    #expect(delayer.delays.isEmpty)
  }

  @Test func `The Request Runs Only After The Wait Ends`() async throws {
    let delayer = ManualDelayer()
    let query = WorkScriptedQuery.failing(untilRun: 1)
    var runner = OperationRunner(
      operation: query.delayed(until: Date(timeIntervalSince1970: 30)).delayer(delayer)
    )
    runner.context.operationClock = ManualOperationClock(date: Date(timeIntervalSince1970: 0))
    let task = Task { [runner] in try await runner.run() }
    await delayer.waitForDelays(count: 1)
    #expect(query.log.runs == 0)
    #expect(delayer.resumeNext())
    #expect(try await task.value == 1)
    #expect(delayer.delays == [.seconds(30)])
  }

  @Test func `Cancellation During The Wait Throws Without Running`() async {
    let delayer = ManualDelayer()
    let request = WorkHeldRequest()
    request.release.open()
    var runner = OperationRunner(
      operation: request.delayed(until: Date(timeIntervalSince1970: 30)).delayer(delayer)
    )
    runner.context.operationClock = ManualOperationClock(date: Date(timeIntervalSince1970: 0))
    let task = Task { [runner] in try await runner.run() }
    await delayer.waitForDelays(count: 1)
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(request.log.runs == 0)
    #expect(delayer.cancelledCount == 1)
  }

  @Test func `A Query Delayed Until A Date Keeps Its Path In A Store`() async throws {
    let query = WorkScriptedQuery.failing(untilRun: 1)
    let delayed = query.delayed(until: Date(timeIntervalSince1970: 5))
    #expect(delayed.path == query.path)
    let delayer = RecordingDelayer()
    let store = OperationStore.detached(query: delayed, initialValue: nil)
    store.context.operationClock = ManualOperationClock(date: Date(timeIntervalSince1970: 0))
    store.context.operationDelayer = delayer
    #expect(try await store.fetch() == 1)
    #expect(delayer.delays == [.seconds(5)])
  }
}
