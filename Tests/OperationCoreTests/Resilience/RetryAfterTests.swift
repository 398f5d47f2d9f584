import Foundation
import OperationCore
import OperationTestSupport
import Testing

@Suite struct `RetryAfter tests` {
  @Test func `A 429 With Retry-After 7 Starts The Next Attempt At Exactly 7 Seconds`() async {
    let clock = ManualOperationClock()
    let upstream = Upstream(.throttled(retryAfter: .seconds(7)))
    let runner = OperationRunner(
      operation: UpstreamQuery(upstream: upstream, id: 1)
        .retry(limit: 1)
        .backoff(.exponential(.seconds(1)).honoringRetryAfter(atMost: .seconds(60)))
        .delayer(AdvancingDelayer(clock: clock))
        .clock(clock)
    )
    await #expect(throws: ThrottledError(retryAfter: .seconds(7))) { try await runner.run() }
    #expect(
      upstream.requestTimes == [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 7)]
    )
  }

  @Test func `Retry-After Is Capped By The Maximum, And Other Errors Keep The Curve`() {
    let backoff = OperationBackoffFunction.exponential(.seconds(1))
      .honoringRetryAfter(atMost: .seconds(30))
    #expect(backoff(1, after: ThrottledError(retryAfter: .seconds(7))) == .seconds(7))
    #expect(backoff(1, after: ThrottledError(retryAfter: .seconds(600))) == .seconds(30))
    #expect(backoff(1, after: ThrottledError(retryAfter: -.seconds(5))) == .zero)
    #expect(backoff(3, after: ThrottledError(retryAfter: nil)) == .seconds(4))
    #expect(backoff(3, after: UpstreamError()) == .seconds(4))
    #expect(backoff(3) == .seconds(4))
  }

  @Test func `A Backoff Function Of The Error Sees Each Failure`() async {
    let upstream = Upstream(.down)
    let delayer = RecordingDelayer()
    let runner = OperationRunner(
      operation: UpstreamQuery(upstream: upstream, id: 1)
        .retry(limit: 2)
        .backoff(
          OperationBackoffFunction("By error") { attempt, error in
            error is UpstreamError ? .seconds(10 * attempt) : .zero
          }
        )
        .delayer(delayer)
    )
    await #expect(throws: UpstreamError.self) { try await runner.run() }
    #expect(delayer.delays == [.seconds(10), .seconds(20)])
  }

  @Test func `Jitter And Caps Pass The Error To The Function They Wrap`() {
    let backoff = OperationBackoffFunction.constant(.seconds(1))
      .honoringRetryAfter(atMost: .seconds(60))
      .capped(at: .seconds(5))
    #expect(backoff(1, after: ThrottledError(retryAfter: .seconds(3))) == .seconds(3))
    #expect(backoff(1, after: ThrottledError(retryAfter: .seconds(9))) == .seconds(5))
    #expect(backoff.rawDescription.contains("honoring Retry-After"))
  }

  @Test func `A Retry-After Header Reads Seconds And HTTP Dates`() {
    let now = Date(timeIntervalSince1970: 1_445_412_000)  // 2015-10-21 07:20:00 GMT
    #expect(OperationDuration(retryAfterHeader: "7", now: now) == .seconds(7))
    #expect(OperationDuration(retryAfterHeader: " 120 ", now: now) == .seconds(120))
    #expect(
      OperationDuration(retryAfterHeader: "Wed, 21 Oct 2015 07:28:00 GMT", now: now)
        == .seconds(480)
    )
    #expect(
      OperationDuration(retryAfterHeader: "Wed, 21 Oct 2015 07:00:00 GMT", now: now) == .zero
    )
    #expect(
      OperationDuration(retryAfterHeader: "Sun, 06 Nov 1994 08:49:37 GMT", now: .distantPast) != nil
    )
    #expect(OperationDuration(retryAfterHeader: "soon", now: now) == nil)
    #expect(OperationDuration(retryAfterHeader: "-3", now: now) == nil)
    #expect(OperationDuration(retryAfterHeader: "Wed, 32 Oct 2015 07:28:00 GMT", now: now) == nil)
  }

  @Test func `A Header Whose Year Is Not A Four-Digit Year Is Not A Date, And Crashes Nothing`() {
    let now = Date(timeIntervalSince1970: 1_445_412_000)
    #expect(
      OperationDuration(retryAfterHeader: "Fri, 31 Dec 9999 23:59:59 GMT", now: now) != nil
    )
    #expect(OperationDuration(retryAfterHeader: "Sat, 01 Jan 10000 00:00:00 GMT", now: now) == nil)
    #expect(
      OperationDuration(retryAfterHeader: "Sun, 06 Nov 999999999999 08:49:37 GMT", now: now)
        == nil
    )
  }
}
