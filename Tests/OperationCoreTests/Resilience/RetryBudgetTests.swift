import Foundation
import Operation
import OperationCore
import OperationTestSupport
import Testing

@Suite struct `RetryBudget tests` {
  @Test func `Under A 20 Percent Budget 1,000 Failing Callers Send At Most 1,300 Requests`() async {
    let upstream = Upstream(.down)
    let budget = RetryBudget(name: "upstream", ratio: 0.2, minimumPerSecond: 10)
    let clock = ManualOperationClock()
    await withTaskGroup(of: Void.self) { group in
      for id in 0..<1_000 {
        group.addTask {
          let runner = OperationRunner(
            operation: UpstreamQuery(upstream: upstream, id: id).retry(limit: 3)
              .retryBudget(budget).delayer(.noDelay).clock(clock)
          )
          _ = try? await runner.run()
        }
      }
    }
    // NB: 1,000 first attempts, 20% of them as retries, and the floor: 10 a second over the
    // 10-second window.
    #expect(upstream.requests <= 1_000 + 200 + 100)
    #expect(upstream.requests > 1_000)
    let snapshot = budget.snapshot(at: clock.now())
    #expect(snapshot.firstAttempts == 1_000)
    #expect(snapshot.retries == upstream.requests - 1_000)
    #expect(snapshot.refused > 0)
  }

  @Test func `Callers One After Another Use The Whole Budget: Exactly 1,300 Requests`() async {
    let upstream = Upstream(.down)
    let budget = RetryBudget(name: "upstream", ratio: 0.2, minimumPerSecond: 10)
    let clock = ManualOperationClock()
    for id in 0..<1_000 {
      let runner = OperationRunner(
        operation: UpstreamQuery(upstream: upstream, id: id).retry(limit: 3)
          .retryBudget(budget).delayer(.noDelay).clock(clock)
      )
      _ = try? await runner.run()
    }
    #expect(upstream.requests == 1_300)
    #expect(budget.snapshot(at: clock.now()).available == 0)
  }

  @Test func `Without A Budget 1,000 Failing Callers Send 4,000 Requests`() async {
    let upstream = Upstream(.down)
    await withTaskGroup(of: Void.self) { group in
      for id in 0..<1_000 {
        group.addTask {
          let runner = OperationRunner(
            operation: UpstreamQuery(upstream: upstream, id: id).retry(limit: 3).delayer(.noDelay)
          )
          _ = try? await runner.run()
        }
      }
    }
    #expect(upstream.requests == 4_000)
  }

  @Test func `A Refused Retry Fails With The Last Error At Once, And Instruments See It`() async {
    let upstream = Upstream(.down)
    let budget = RetryBudget(name: "tight", ratio: 0, minimumPerSecond: 0)
    let delayer = RecordingDelayer()
    let events = EventLog()
    var context = OperationContext()
    context.operationInstruments = [events]
    let runner = OperationRunner(
      operation: UpstreamQuery(upstream: upstream, id: 1).retry(limit: 3).retryBudget(budget)
        .delayer(delayer),
      initialContext: context
    )
    await #expect(throws: UpstreamError()) { try await runner.run() }
    #expect(upstream.requests == 1)
    #expect(delayer.delays.isEmpty)
    #expect(events.events == [.retryRefusedByBudget(budget: "tight")])
  }

  @Test func `Deposits And Withdrawals Expire After The Window`() {
    let budget = RetryBudget(ratio: 0.5, minimumPerSecond: 0, window: .seconds(2))
    let start = Date(timeIntervalSince1970: 100)
    for _ in 0..<4 { budget.recordFirstAttempt(at: start) }
    #expect(budget.tryRetry(at: start))
    #expect(budget.tryRetry(at: start))
    #expect(!budget.tryRetry(at: start))
    #expect(budget.snapshot(at: start.addingTimeInterval(1)).available == 0)
    let later = start.addingTimeInterval(2)
    let expired = budget.snapshot(at: later)
    #expect(expired.firstAttempts == 0 && expired.retries == 0 && expired.refused == 1)
    budget.recordFirstAttempt(at: later)
    budget.recordFirstAttempt(at: later)
    #expect(budget.tryRetry(at: later))
  }

  @Test func `A Budget In The Client's Default Context Covers Every Store`() async throws {
    let upstream = Upstream(.down)
    var context = OperationContext()
    context.operationRetryBudget = RetryBudget(name: "client", ratio: 0, minimumPerSecond: 0)
    let client = OperationClient(defaultContext: context)
    let store = client.store(
      for: UpstreamQuery(upstream: upstream, id: 1).retry(limit: 3).delayer(.noDelay)
    )
    await #expect(throws: UpstreamError()) { try await store.fetch() }
    #expect(upstream.requests == 1)
  }

  @Test func `Huge Ratios And Floors Saturate Instead Of Overflowing`() {
    let now = Date(timeIntervalSince1970: 100)
    let unlimited = RetryBudget(ratio: .infinity, minimumPerSecond: 0)
    unlimited.recordFirstAttempt(at: now)
    #expect(unlimited.tryRetry(at: now))
    #expect(unlimited.snapshot(at: now).available == Int.max - 1)
    let generous = RetryBudget(ratio: 0, minimumPerSecond: .max)
    #expect(generous.tryRetry(at: now))
    #expect(generous.snapshot(at: now).available == Int.max - 1)
  }

  @Test func `A Ratio That Is Not A Number Stops The Program`() async {
    await #expect(processExitsWith: .failure) {
      _ = RetryBudget(name: "broken", ratio: .nan)
    }
  }
}
