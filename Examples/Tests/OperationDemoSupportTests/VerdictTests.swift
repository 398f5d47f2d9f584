import OperationDemoSupport
import Testing

@Suite struct `Verdict tests` {
  // MARK: - Runs

  @Test func `a run with the expected value passes`() {
    let verdict = Verdict.run(
      .value(isExpected: true),
      label: "post 1",
      expectation: "post 1",
      attempts: 2,
      faults: InjectedFaults(failureRate: 0.2, requests: 2, failures: 1)
    )
    #expect(verdict == Verdict(passed: true, message: "post 1: the store holds post 1"))
  }

  @Test func `a run with another value fails`() {
    let verdict = Verdict.run(
      .value(isExpected: false),
      label: "post 1",
      expectation: "post 1",
      attempts: 1,
      faults: nil
    )
    #expect(!verdict.passed)
  }

  @Test func `a run that never succeeded fails even when the fault injection caused every failure`()
  {
    let verdict = Verdict.run(
      .failure("HTTP 500"),
      label: "post 1",
      expectation: "post 1",
      attempts: 4,
      faults: InjectedFaults(failureRate: 1, requests: 4, failures: 4)
    )
    #expect(!verdict.passed)
    #expect(
      verdict.message
        == "post 1: the operation never succeeded: 4 attempt(s) failed, the last with "
        + "“HTTP 500”; the embedded server injected HTTP 500 into 4 of its 4 request(s) "
        + "(--failure-rate 1.0)"
    )
  }

  @Test func `a failed run without fault injection does not mention it`() {
    let verdict = Verdict.run(
      .failure("could not connect to http://127.0.0.1:9: no server answered"),
      label: "post 1",
      expectation: "post 1",
      attempts: 4,
      faults: nil
    )
    #expect(!verdict.passed)
    #expect(
      verdict.message
        == "post 1: the operation never succeeded: 4 attempt(s) failed, the last with "
        + "“could not connect to http://127.0.0.1:9: no server answered”"
    )
  }

  @Test func `a failed run mentions no fault injection that failed nothing`() {
    let verdict = Verdict.run(
      .failure("HTTP 503, the server is offline"),
      label: "post 3",
      expectation: "post 3",
      attempts: 4,
      faults: InjectedFaults(failureRate: 0.2, requests: 4, failures: 0)
    )
    #expect(!verdict.passed)
    #expect(!verdict.message.contains("failure-rate"))
  }

  @Test func `a run with no result fails`() {
    let verdict = Verdict.run(
      .noResult,
      label: "post 2",
      expectation: "post 2",
      attempts: 0,
      faults: nil
    )
    #expect(!verdict.passed)
  }

  // MARK: - Requests

  @Test(arguments: [(1, 1, true), (4, 4, true), (2, 3, false), (3, 2, false), (0, 0, false)])
  func `one request per attempt passes only when there were attempts and they match`(
    attempts: Int,
    requests: Int,
    passes: Bool
  ) {
    let verdict = Verdict.requestsPerAttempt(label: "feed", attempts: attempts, requests: requests)
    #expect(verdict.passed == passes)
  }

  @Test(arguments: [(22, 22, true), (22, 21, false), (0, 0, false)])
  func `every request reached the server passes only when some were sent and all arrived`(
    sent: Int,
    received: Int,
    passes: Bool
  ) {
    #expect(Verdict.requestsReachedServer(sent: sent, received: received).passed == passes)
  }

  // MARK: - Shared store

  @Test(arguments: [(3, 1, true), (3, 2, false), (2, 1, false), (0, 0, false)])
  func `observers share a run only when the store ran three times and the query once`(
    storeRuns: Int,
    operationRuns: Int,
    passes: Bool
  ) {
    let verdict = Verdict.sharedRuns(
      storeRuns: storeRuns,
      operationRuns: operationRuns,
      expectedStoreRuns: 3
    )
    #expect(verdict.passed == passes)
  }

  @Test func `observers that saw the same status pass`() {
    #expect(Verdict.sameFinalStatus("success: post 2", "success: post 2").passed)
  }

  @Test(arguments: [("loading", "success"), (nil, nil), ("success", nil)] as [(String?, String?)])
  func `observers that saw different statuses or none fail`(first: String?, second: String?) {
    #expect(!Verdict.sameFinalStatus(first, second).passed)
  }

  // MARK: - Feed

  @Test func `a feed that reached its last page passes`() {
    let verdict = Verdict.feedReachedEnd(
      hasNextPage: false,
      pageCount: 10,
      total: 100,
      failuresInARow: 0,
      lastError: nil,
      faults: InjectedFaults(failureRate: 0.2, requests: 12, failures: 2)
    )
    #expect(
      verdict
        == Verdict(
          passed: true,
          message: "fetchNextPage() reached the end: no next page after page 10"
        )
    )
  }

  @Test func `a feed that stopped early names the fault injection only when it failed requests`() {
    let injected = Verdict.feedReachedEnd(
      hasNextPage: true,
      pageCount: 0,
      total: 0,
      failuresInARow: 3,
      lastError: "HTTP 500",
      faults: InjectedFaults(failureRate: 1, requests: 12, failures: 12)
    )
    let refused = Verdict.feedReachedEnd(
      hasNextPage: true,
      pageCount: 0,
      total: 0,
      failuresInARow: 3,
      lastError: "could not connect to http://127.0.0.1:9: no server answered",
      faults: nil
    )
    #expect(!injected.passed)
    #expect(
      injected.message
        == "the feed stopped before its end: “Load more” failed 3 time(s) in a row, the last "
        + "with “HTTP 500”; the embedded server injected HTTP 500 into 12 of its 12 request(s) "
        + "(--failure-rate 1.0)"
    )
    #expect(!refused.passed)
    #expect(
      refused.message
        == "the feed stopped before its end: “Load more” failed 3 time(s) in a row, the last "
        + "with “could not connect to http://127.0.0.1:9: no server answered”"
    )
  }

  @Test func `a feed that ended without a post fails`() {
    let verdict = Verdict.feedReachedEnd(
      hasNextPage: false,
      pageCount: 1,
      total: 0,
      failuresInARow: 0,
      lastError: nil,
      faults: nil
    )
    #expect(!verdict.passed)
  }

  @Test(
    arguments: [
      (100, 100, 10, true), (95, 95, 10, true), (90, 100, 9, false), (100, 100, 11, false),
      (0, 0, 0, false),
    ]
  )
  func `the feed holds every post only when the server reported some and all arrived`(
    postCount: Int,
    total: Int,
    pageCount: Int,
    passes: Bool
  ) {
    let verdict = Verdict.feedHoldsEveryPost(
      postCount: postCount,
      total: total,
      pageCount: pageCount,
      pageSize: 10
    )
    #expect(verdict.passed == passes)
  }

  @Test func `posts that appear once in order pass`() {
    #expect(Verdict.postsAppearOnce(ids: [1, 2, 3], expectedIds: [1, 2, 3]).passed)
    #expect(Verdict.postsAppearOnce(ids: [3, 1, 2], expectedIds: nil).passed)
  }

  @Test func `no posts fail the every-post-appears-once check`() {
    #expect(!Verdict.postsAppearOnce(ids: [], expectedIds: []).passed)
    #expect(!Verdict.postsAppearOnce(ids: [], expectedIds: nil).passed)
  }

  @Test func `a repeated post fails and is named`() {
    let verdict = Verdict.postsAppearOnce(ids: [1, 2, 2, 3], expectedIds: nil)
    #expect(verdict == Verdict(passed: false, message: "post(s) 2 appear more than once"))
  }

  @Test func `posts out of the server's order fail`() {
    #expect(!Verdict.postsAppearOnce(ids: [2, 1, 3], expectedIds: [1, 2, 3]).passed)
    #expect(!Verdict.postsAppearOnce(ids: [1, 2], expectedIds: [1, 2, 3]).passed)
  }
}
