import OperationDemoSupport
import Testing

@Suite struct `Verdict mutation effects tests` {
  // MARK: - Invalidation

  @Test func `a store fetched again after the mutation passes`() {
    let verdict = Verdict.refetchedAfterMutation(
      store: "feed",
      mutationRequest: "POST /posts/add",
      requestsAfter: 10,
      faults: InjectedFaults(failureRate: 0.2, requests: 11, failures: 1)
    )
    #expect(verdict.passed)
    #expect(
      verdict.message
        == "the server answered 10 feed request(s) after POST /posts/add: the invalidated feed "
        + "fetched again"
    )
  }

  @Test(arguments: [0, nil] as [Int?])
  func `no request after the mutation, or no mutation, fails`(requestsAfter: Int?) {
    let verdict = Verdict.refetchedAfterMutation(
      store: "feed",
      mutationRequest: "POST /posts/add",
      requestsAfter: requestsAfter,
      faults: nil
    )
    #expect(!verdict.passed)
  }

  @Test func `a rerun that the fault injection failed says so`() {
    let verdict = Verdict.refetchedAfterMutation(
      store: "feed",
      mutationRequest: "POST /posts/add",
      requestsAfter: 0,
      faults: InjectedFaults(failureRate: 0.2, requests: 4, failures: 4)
    )
    #expect(!verdict.passed)
    #expect(
      verdict.message
        == "no feed request reached the server's route after POST /posts/add: the feed did not "
        + "fetch again; the embedded server injected HTTP 500 into 4 of its 4 request(s) "
        + "(--failure-rate 0.2)"
    )
  }

  @Test func `a feed that holds the new post passes`() {
    let verdict = Verdict.feedShowsNewPost(id: 102, idsBefore: [101, 100], idsAfter: [102, 101])
    #expect(
      verdict
        == Verdict(passed: true, message: "the feed holds the new post 102, at position 1 of 2")
    )
  }

  @Test func `a feed without the new post fails`() {
    let verdict = Verdict.feedShowsNewPost(id: 102, idsBefore: [101, 100], idsAfter: [101, 100])
    #expect(!verdict.passed)
    #expect(verdict.message == "the feed does not hold the new post 102 (2 post(s), 101, 100)")
  }

  @Test func `an empty feed fails`() {
    #expect(!Verdict.feedShowsNewPost(id: 102, idsBefore: [], idsAfter: []).passed)
  }

  @Test func `no created post fails`() {
    #expect(!Verdict.feedShowsNewPost(id: nil, idsBefore: [], idsAfter: [101]).passed)
  }

  @Test func `a post that was there before proves nothing and fails`() {
    #expect(!Verdict.feedShowsNewPost(id: 101, idsBefore: [101], idsAfter: [101]).passed)
  }

  // MARK: - Optimistic updates

  @Test func `the draft on top of the earlier posts passes`() {
    let verdict = Verdict.draftShownInFlight(
      draftId: -1,
      idsBefore: [102, 101],
      idsInFlight: [-1, 102, 101]
    )
    #expect(verdict.passed)
  }

  @Test(arguments: [nil, [], [102, 101], [102, -1, 101], [-1, 101]] as [[Int]?])
  func `no draft on top, changed posts or nothing in flight fails`(idsInFlight: [Int]?) {
    let verdict = Verdict.draftShownInFlight(
      draftId: -1,
      idsBefore: [102, 101],
      idsInFlight: idsInFlight
    )
    #expect(!verdict.passed)
  }

  @Test(arguments: [(1, 1, true), (0, 0, false), (1, 0, false), (4, 4, false), (2, 1, false)])
  func `the draft passes only when it appeared once and went once`(
    appearances: Int,
    removals: Int,
    passes: Bool
  ) {
    #expect(Verdict.draftShownOnce(appearances: appearances, removals: removals).passed == passes)
  }

  @Test func `a mutation that failed after every attempt passes`() {
    let verdict = Verdict.failedAfterEveryAttempt(
      label: "create post",
      error: "HTTP 500",
      attempts: 4,
      expectedAttempts: 4
    )
    #expect(verdict.passed)
    #expect(
      verdict.message
        == "create post: the mutation failed after 4 attempt(s) (4 expected: 1 + 3 retries), "
        + "the last with “HTTP 500”"
    )
  }

  @Test func `a mutation that succeeded fails the check`() {
    let verdict = Verdict.failedAfterEveryAttempt(
      label: "create post",
      error: nil,
      attempts: 2,
      expectedAttempts: 4
    )
    #expect(!verdict.passed)
  }

  @Test(arguments: [0, 1, 5])
  func `a failure after another number of attempts fails the check`(attempts: Int) {
    let verdict = Verdict.failedAfterEveryAttempt(
      label: "create post",
      error: "HTTP 500",
      attempts: attempts,
      expectedAttempts: 4
    )
    #expect(!verdict.passed)
  }

  @Test(arguments: [
    (4, 4, 4, true), (4, 4, 3, false), (4, 3, 3, false), (0, 0, 0, false), (4, 0, 0, false),
  ])
  func `every attempt refused passes only when each attempt was one refused request`(
    attempts: Int,
    requests: Int,
    refused: Int,
    passes: Bool
  ) {
    let verdict = Verdict.everyAttemptRefused(
      label: "create post",
      attempts: attempts,
      requests: requests,
      refused: refused
    )
    #expect(verdict.passed == passes)
  }

  @Test func `a restored feed passes`() {
    let verdict = Verdict.rolledBack(
      isRestored: true,
      idsBefore: [102, 101],
      idsAfter: [102, 101],
      draftId: -1
    )
    #expect(verdict.passed)
  }

  @Test func `a feed that kept the draft fails`() {
    let verdict = Verdict.rolledBack(
      isRestored: false,
      idsBefore: [102, 101],
      idsAfter: [-1, 102, 101],
      draftId: -1
    )
    #expect(
      verdict == Verdict(passed: false, message: "the feed still shows the draft after the failure")
    )
  }

  @Test func `a feed that changed otherwise fails`() {
    let verdict = Verdict.rolledBack(
      isRestored: false,
      idsBefore: [102, 101],
      idsAfter: [101],
      draftId: -1
    )
    #expect(!verdict.passed)
  }

  @Test func `an empty feed has nothing to compare and fails`() {
    let verdict = Verdict.rolledBack(isRestored: true, idsBefore: [], idsAfter: [], draftId: -1)
    #expect(!verdict.passed)
  }

  @Test func `a server that kept no post passes`() {
    let verdict = Verdict.postNotStored(
      title: "Draft",
      countBefore: 2,
      titlesAfter: ["First", "Second"]
    )
    #expect(verdict.passed)
  }

  @Test(arguments: [["First", "Second", "Draft"], ["First", "Second", "Other"], ["First"]])
  func `a server that kept the post or changed its count fails`(titlesAfter: [String]) {
    let verdict = Verdict.postNotStored(title: "Draft", countBefore: 2, titlesAfter: titlesAfter)
    #expect(!verdict.passed)
  }
}
