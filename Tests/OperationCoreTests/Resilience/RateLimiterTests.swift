import Foundation
import OperationTestSupport
import Testing

@testable import OperationCore

@Suite struct `RateLimiter tests` {
  /// Starts `count` runs of `cost` at once through `limiter`, and returns the waits the delayer
  /// was asked for once every run past the burst waits.
  private func startAtOnce(
    _ count: Int,
    cost: Int = 1,
    limiter: RateLimiter,
    upstream: Upstream
  ) -> (delayer: ManualDelayer, runs: Task<Void, Never>) {
    let delayer = ManualDelayer()
    let clock = ManualOperationClock()
    let runs = Task {
      await withTaskGroup(of: Void.self) { group in
        for id in 0..<count {
          group.addTask {
            _ = try? await OperationRunner(
              operation: UpstreamQuery(upstream: upstream, id: id)
                .rateLimited(by: limiter, cost: cost).delayer(delayer).clock(clock)
            )
            .run()
          }
        }
      }
    }
    return (delayer, runs)
  }

  @Test func `100 Starts With A Capacity Of 10 And A Refill Of 10 A Second Take 9 Seconds`()
    async
  {
    let upstream = Upstream()
    let limiter = RateLimiter(name: "api", capacity: 10, refill: 10, per: .seconds(1))
    let (delayer, runs) = self.startAtOnce(100, limiter: limiter, upstream: upstream)
    await delayer.waitForDelays(count: 90)
    let waits = delayer.delays.sorted()
    #expect(waits == (1...90).map { .milliseconds(100 * $0) })
    #expect(waits.last == .seconds(9))
    #expect(delayer.pendingCount == 90)
    delayer.resumeAll()
    await runs.value
    #expect(upstream.requests == 100)
  }

  @Test func `A Start Costs Its Tokens: Two Mutations Of 5 Empty A Bucket Of 10`() async {
    let upstream = Upstream()
    let limiter = RateLimiter(name: "api", capacity: 10, refill: 10, per: .seconds(1))
    let (delayer, runs) = self.startAtOnce(
      4,
      cost: 5,
      limiter: limiter,
      upstream: upstream
    )
    await delayer.waitForDelays(count: 2)
    #expect(delayer.delays.sorted() == [.milliseconds(500), .seconds(1)])
    delayer.resumeAll()
    await runs.value
    #expect(upstream.requests == 4)
  }

  @Test func `The Bucket Refills With Time On The Run's Clock`() {
    let limiter = RateLimiter(name: "api", capacity: 2, refill: 1, per: .seconds(1))
    let start = Date(timeIntervalSince1970: 50)
    #expect(limiter.availableTokens(at: start) == 2)
    #expect(limiter.reserve(cost: 2, at: start) == .starts(after: .zero))
    #expect(limiter.availableTokens(at: start) == 0)
    #expect(limiter.availableTokens(at: start.addingTimeInterval(1)) == 1)
    #expect(limiter.availableTokens(at: start.addingTimeInterval(10)) == 2)
  }

  @Test func `A Fail-Fast Limiter Refuses A Start It Cannot Pay, With When It Could`() async throws
  {
    let clock = ManualOperationClock()
    let limiter = RateLimiter(
      name: "strict",
      capacity: 1,
      refill: 2,
      per: .seconds(1),
      whenFull: .failFast
    )
    let upstream = Upstream()
    let events = EventLog()
    var context = OperationContext()
    context.operationInstruments = [events]
    let runner = OperationRunner(
      operation: UpstreamQuery(upstream: upstream, id: 1).rateLimited(by: limiter).clock(clock),
      initialContext: context
    )
    #expect(try await runner.run() == 1)
    await #expect(
      throws: RateLimitExceededError(limiter: "strict", retryAfter: .milliseconds(500))
    ) { try await runner.run() }
    #expect(upstream.requests == 1)
    #expect(events.events == [.rejectedWhenFull(policy: "strict")])
    clock.advance(by: 0.5)
    #expect(try await runner.run() == 1)
  }

  @Test func `A Cancelled Wait Throws And Gives Its Tokens Back`() async throws {
    let limiter = RateLimiter(name: "api", capacity: 1, refill: 1, per: .seconds(1))
    let delayer = ManualDelayer()
    let clock = ManualOperationClock()
    let upstream = Upstream()
    let runner = OperationRunner(
      operation: UpstreamQuery(upstream: upstream, id: 1).rateLimited(by: limiter)
        .delayer(delayer).clock(clock)
    )
    #expect(try await runner.run() == 1)
    let waiting = Task { try await runner.run() }
    await delayer.waitForDelays(count: 1)
    #expect(limiter.availableTokens(at: clock.now()) == -1)
    waiting.cancel()
    await #expect(throws: CancellationError.self) { try await waiting.value }
    #expect(limiter.availableTokens(at: clock.now()) == 0)
    #expect(upstream.requests == 1)
  }

  @Test func `A Cost Above The Capacity Stops The Program, For It Could Never Start`() async {
    let limiter = RateLimiter(name: "api", capacity: 10, refill: 10, whenFull: .failFast)
    _ = UpstreamQuery(upstream: Upstream(), id: 1).rateLimited(by: limiter, cost: 10)
    await #expect(processExitsWith: .failure) {
      let limiter = RateLimiter(name: "api", capacity: 10, refill: 10, whenFull: .failFast)
      _ = UpstreamQuery(upstream: Upstream(), id: 1).rateLimited(by: limiter, cost: 11)
    }
  }

  @Test func `A Capacity Above 2^32 Stops The Program`() async {
    #expect(RateLimiter(name: "api", capacity: 1 << 32, refill: 1).capacity == 1 << 32)
    await #expect(processExitsWith: .failure) {
      _ = RateLimiter(name: "api", capacity: Int.max, refill: 1, per: .seconds(60))
    }
  }
}
