import OperationDemoSupport
import Testing

@Suite struct `Verdict outbox tests` {
  // MARK: - Exactly once

  @Test func `every key applied once passes`() {
    let verdict = Verdict.appliedExactlyOnce(
      expectedKeys: ["a", "b", "c"],
      appliedKeysByPath: ["/1": ["a", "c"], "/2": ["b"]]
    )
    #expect(verdict.passed)
    #expect(
      verdict.message
        == "the server applied each of the 3 keys exactly once: 3 applied, none missing, none twice"
    )
  }

  @Test func `a missing, a repeated and an unknown key each fail`() {
    let verdict = Verdict.appliedExactlyOnce(
      expectedKeys: ["a", "b", "c"],
      appliedKeysByPath: ["/1": ["a", "a"], "/2": ["b", "x"]]
    )
    #expect(!verdict.passed)
    #expect(
      verdict.message
        == "of 3 keys, 1 never applied (c); 1 applied more than once (a); "
        + "1 applied but never enqueued (x)"
    )
  }

  @Test func `nothing expected fails`() {
    #expect(!Verdict.appliedExactlyOnce(expectedKeys: [], appliedKeysByPath: [:]).passed)
  }

  // MARK: - Order

  @Test func `each path in enqueue order passes`() {
    let verdict = Verdict.appliedInOrder(
      expectedKeysByPath: ["/1": ["a", "b"], "/2": ["c"]],
      appliedKeysByPath: ["/2": ["c"], "/1": ["a", "b"]]
    )
    #expect(verdict.passed)
    #expect(
      verdict.message
        == "on each of the 2 paths the server applied the keys in the order they were enqueued "
        + "(3 keys)"
    )
  }

  @Test func `a swap on one path fails and says where`() {
    let verdict = Verdict.appliedInOrder(
      expectedKeysByPath: ["/1": ["a", "b", "c"]],
      appliedKeysByPath: ["/1": ["a", "c", "b"]]
    )
    #expect(!verdict.passed)
    #expect(
      verdict.message
        == "on /1 the server applied c at position 2, where the enqueue order puts b "
        + "(3 applied, 3 enqueued)"
    )
  }

  @Test func `a path cut short fails`() {
    let verdict = Verdict.appliedInOrder(
      expectedKeysByPath: ["/1": ["a", "b"]],
      appliedKeysByPath: ["/1": ["a"]]
    )
    #expect(!verdict.passed)
    #expect(verdict.message.contains("applied nothing at position 2"))
  }

  @Test func `no order to check fails`() {
    #expect(!Verdict.appliedInOrder(expectedKeysByPath: [:], appliedKeysByPath: [:]).passed)
    #expect(!Verdict.appliedInOrder(expectedKeysByPath: ["/1": []], appliedKeysByPath: [:]).passed)
  }

  // MARK: - Survival of committed entries

  @Test func `reported entries found after the restart pass, with one more committed`() {
    let verdict = Verdict.committedEntriesSurvived(
      reported: ["a", "b"],
      found: ["a", "b", "c"],
      order: ["a", "b", "c", "d"]
    )
    #expect(verdict.passed)
    #expect(
      verdict.message.hasSuffix(
        "(3 found, the first of the enqueue order; 1 committed after its last line)"
      )
    )
  }

  @Test func `a reported entry that is gone fails`() {
    let verdict = Verdict.committedEntriesSurvived(
      reported: ["a", "b"],
      found: ["a"],
      order: ["a", "b", "c"]
    )
    #expect(!verdict.passed)
    #expect(verdict.message.hasPrefix("1 of the 2 entries"))
  }

  @Test func `found entries with a gap fail`() {
    let verdict = Verdict.committedEntriesSurvived(
      reported: ["a"],
      found: ["a", "c"],
      order: ["a", "b", "c"]
    )
    #expect(!verdict.passed)
  }

  @Test func `nothing reported fails`() {
    #expect(!Verdict.committedEntriesSurvived(reported: [], found: [], order: ["a"]).passed)
  }

  // MARK: - Kills

  @Test func `a kill before the end passes`() {
    let verdict = Verdict.killedMidRun(
      label: "child 1",
      wasKilled: true,
      progress: 74,
      total: 200,
      unit: "entries"
    )
    #expect(verdict.passed)
    #expect(verdict.message == "child 1 was killed with SIGKILL mid-run: 74 of 200 entries")
  }

  @Test(arguments: [(true, 200), (false, 10)])
  func `a kill after the end, or no kill, fails`(wasKilled: Bool, progress: Int) {
    let verdict = Verdict.killedMidRun(
      label: "child 1",
      wasKilled: wasKilled,
      progress: progress,
      total: 200,
      unit: "entries"
    )
    #expect(!verdict.passed)
  }

  @Test func `an entry resent after the kill passes`() {
    #expect(Verdict.resentAfterKill(key: "k", receipts: 2).passed)
  }

  @Test(arguments: [("k", 1), (nil, 0)] as [(String?, Int)])
  func `an entry never resent, or no kill, fails`(key: String?, receipts: Int) {
    #expect(!Verdict.resentAfterKill(key: key, receipts: receipts).passed)
  }

  // MARK: - The demo's step

  @Test func `every mutation held while offline passes`() {
    let verdict = Verdict.heldWhileOffline(queued: 3, expected: 3, requestsReachingRoute: 0)
    #expect(verdict.passed)
    #expect(
      verdict.message == "while offline the outbox held the 3 mutations and none reached the server"
    )
  }

  @Test(arguments: [(2, 3, 0), (3, 3, 1), (0, 0, 0)])
  func `a missing entry, a request that got through, or no mutation fails`(
    queued: Int,
    expected: Int,
    requests: Int
  ) {
    #expect(
      !Verdict.heldWhileOffline(queued: queued, expected: expected, requestsReachingRoute: requests)
        .passed
    )
  }

  @Test func `an empty outbox after deliveries passes`() {
    #expect(Verdict.outboxEmptied(entriesLeft: 0, delivered: 3).passed)
  }

  @Test(arguments: [(1, 3), (0, 0)])
  func `entries left, or nothing delivered, fails`(left: Int, delivered: Int) {
    #expect(!Verdict.outboxEmptied(entriesLeft: left, delivered: delivered).passed)
  }

  @Test func `a replay with the first post and no new post passes`() {
    let verdict = Verdict.replayAnsweredWithFirst(
      firstId: 31,
      replayedId: 31,
      postsBefore: 33,
      postsAfter: 33
    )
    #expect(verdict.passed)
    #expect(
      verdict.message == "the repeated key got the first answer (post 31) and created nothing"
    )
  }

  @Test(
    arguments: [(31, 32, 33, 33), (31, 31, 33, 34), (nil, 31, 33, 33), (31, nil, 33, 33)]
      as [(Int?, Int?, Int, Int)]
  )
  func `another post, a new post, or no post fails`(
    firstId: Int?,
    replayedId: Int?,
    before: Int,
    after: Int
  ) {
    let verdict = Verdict.replayAnsweredWithFirst(
      firstId: firstId,
      replayedId: replayedId,
      postsBefore: before,
      postsAfter: after
    )
    #expect(!verdict.passed)
  }
}
