import OperationTestSupport
import Testing

@testable import OperationCore

@Suite struct `Bulkhead tests` {
  @Test func `At Most Its Slots Run At Once, And The Line Is Served In Order`() async throws {
    let bulkhead = Bulkhead(name: "reports", maxConcurrent: 2)
    #expect(bulkhead.enter() == .acquired)
    #expect(bulkhead.enter() == .acquired)
    guard case .waits(let first) = bulkhead.enter(), case .waits(let second) = bulkhead.enter()
    else {
      Issue.record("A full bulkhead puts runs in line.")
      return
    }
    #expect(bulkhead.runningCount == 2)
    let firstTurn = Task { try await bulkhead.wait(first) }
    let secondTurn = Task { try await bulkhead.wait(second) }
    bulkhead.release()
    try await firstTurn.value
    #expect(bulkhead.runningCount == 2)
    #expect(bulkhead.waitingCount == 1)
    bulkhead.release()
    try await secondTurn.value
    bulkhead.release()
    bulkhead.release()
    #expect(bulkhead.runningCount == 0)
    #expect(bulkhead.enter() == .acquired)
  }

  @Test func `A Cancelled Run Leaves The Line And The Next One Gets Its Turn`() async throws {
    let bulkhead = Bulkhead(name: "reports", maxConcurrent: 1)
    #expect(bulkhead.enter() == .acquired)
    guard case .waits(let cancelled) = bulkhead.enter(), case .waits(let next) = bulkhead.enter()
    else {
      Issue.record("A full bulkhead puts runs in line.")
      return
    }
    let cancelledTurn = Task { try await bulkhead.wait(cancelled) }
    cancelledTurn.cancel()
    await #expect(throws: CancellationError.self) { try await cancelledTurn.value }
    let nextTurn = Task { try await bulkhead.wait(next) }
    bulkhead.release()
    try await nextTurn.value
    #expect(bulkhead.runningCount == 1)
    #expect(bulkhead.waitingCount == 0)
  }

  @Test func `Runs Through The Modifier Hold A Slot For Their Whole Run`() async throws {
    let bulkhead = Bulkhead(name: "reports", maxConcurrent: 1, whenFull: .failFast)
    let query = GatedQuery()
    let events = EventLog()
    var context = OperationContext()
    context.operationInstruments = [events]
    let held = OperationRunner(operation: query.bulkhead(bulkhead), initialContext: context)
    let running = Task { try await held.run() }
    await query.started.wait()
    await #expect(throws: BulkheadFullError(bulkhead: "reports")) { try await held.run() }
    #expect(events.events == [.rejectedWhenFull(policy: "reports")])
    query.gate.open()
    #expect(try await running.value == 1)
    #expect(bulkhead.runningCount == 0)
    #expect(try await held.run() == 1)
  }

  @Test func `A Failed Run Frees Its Slot`() async {
    let bulkhead = Bulkhead(name: "reports", maxConcurrent: 1)
    let runner = OperationRunner(
      operation: UpstreamQuery(upstream: Upstream(.down), id: 1).bulkhead(bulkhead)
    )
    await #expect(throws: UpstreamError()) { try await runner.run() }
    #expect(bulkhead.runningCount == 0)
  }
}
