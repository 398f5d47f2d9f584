// The checks of the mutation outbox: the demo's outbox step and the crash test
// (`operation-demo outbox-crash-test`). Each one fails on empty input, so that a run in which
// nothing was enqueued, nothing was applied or nothing was killed cannot pass.

extension Verdict {
  /// Checks that the server applied each expected key exactly once, and no other key.
  ///
  /// - Parameters:
  ///   - expectedKeys: The keys of the mutations that were enqueued.
  ///   - appliedKeysByPath: The keys the server applied, per path, in order
  ///     (``IdempotencyLedger/appliedKeysByPath``).
  /// - Returns: The verdict; it fails when no key was expected.
  public static func appliedExactlyOnce(
    expectedKeys: [String],
    appliedKeysByPath: [String: [String]]
  ) -> Verdict {
    guard !expectedKeys.isEmpty else {
      return Verdict(passed: false, message: "no mutation was enqueued, so none could be applied")
    }
    let applied = appliedKeysByPath.values.flatMap { $0 }
    let counts = applied.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
    let expected = Set(expectedKeys)
    let missing = expectedKeys.filter { counts[$0] == nil }
    let twice = counts.filter { $0.value > 1 }.keys.sorted()
    let unexpected = Set(counts.keys).subtracting(expected).sorted()
    guard missing.isEmpty && twice.isEmpty && unexpected.isEmpty else {
      var problems = [String]()
      if !missing.isEmpty {
        problems.append("\(missing.count) never applied (\(Self.sample(missing)))")
      }
      if !twice.isEmpty {
        problems.append("\(twice.count) applied more than once (\(Self.sample(twice)))")
      }
      if !unexpected.isEmpty {
        problems.append(
          "\(unexpected.count) applied but never enqueued (\(Self.sample(unexpected)))"
        )
      }
      return Verdict(
        passed: false,
        message: "of \(expectedKeys.count) keys, " + problems.joined(separator: "; ")
      )
    }
    return Verdict(
      passed: true,
      message: "the server applied each of the \(expected.count) keys exactly once: "
        + "\(applied.count) applied, none missing, none twice"
    )
  }

  /// Checks that, on every path, the server applied the keys in the order they were enqueued.
  ///
  /// - Parameters:
  ///   - expectedKeysByPath: Each path's keys in the order they were enqueued.
  ///   - appliedKeysByPath: Each path's keys in the order the server applied them.
  /// - Returns: The verdict; it fails when no key was expected.
  public static func appliedInOrder(
    expectedKeysByPath: [String: [String]],
    appliedKeysByPath: [String: [String]]
  ) -> Verdict {
    let total = expectedKeysByPath.values.reduce(0) { $0 + $1.count }
    guard total > 0 else {
      return Verdict(passed: false, message: "no mutation was enqueued, so there is no order")
    }
    for path in expectedKeysByPath.keys.sorted() {
      let expected = expectedKeysByPath[path, default: []]
      let applied = appliedKeysByPath[path, default: []]
      guard applied == expected else {
        let common = min(expected.count, applied.count)
        let position = (0..<common).first { expected[$0] != applied[$0] } ?? common
        let seen = position < applied.count ? applied[position] : "nothing"
        let wanted = position < expected.count ? expected[position] : "nothing"
        return Verdict(
          passed: false,
          message: "on \(path) the server applied \(seen) at position \(position + 1), where "
            + "the enqueue order puts \(wanted) (\(applied.count) applied, "
            + "\(expected.count) enqueued)"
        )
      }
    }
    let paths = expectedKeysByPath.count
    return Verdict(
      passed: true,
      message: paths == 1
        ? "the server applied the \(total) keys in the order they were enqueued"
        : "on each of the \(paths) paths the server applied the keys in the order they were "
          + "enqueued (\(total) keys)"
    )
  }

  /// Checks that every entry that a killed process reported as committed was in the outbox when
  /// the next process started, and that the entries found there are the first ones of the
  /// enqueue order, with no gap.
  ///
  /// - Parameters:
  ///   - reported: The keys the killed process printed after their transaction committed.
  ///   - found: The keys the next process found in the outbox.
  ///   - order: Every key, in the order they are enqueued.
  /// - Returns: The verdict; it fails when the killed process reported nothing.
  public static func committedEntriesSurvived(
    reported: [String],
    found: [String],
    order: [String]
  ) -> Verdict {
    guard !reported.isEmpty else {
      return Verdict(
        passed: false,
        message: "the killed child reported no committed entry, so there is nothing to look for"
      )
    }
    let foundSet = Set(found)
    let lost = reported.filter { !foundSet.contains($0) }
    guard lost.isEmpty else {
      return Verdict(
        passed: false,
        message: "\(lost.count) of the \(reported.count) entries the killed child reported as "
          + "committed were gone after the restart (\(Self.sample(lost)))"
      )
    }
    guard found == Array(order.prefix(found.count)) else {
      return Verdict(
        passed: false,
        message: "the \(found.count) entries found after the restart are not the first ones of "
          + "the enqueue order (\(Self.sample(found)))"
      )
    }
    let extra = found.count - reported.count
    return Verdict(
      passed: true,
      message: "the \(reported.count) entries the killed child reported as committed were all in "
        + "the outbox after the restart (\(found.count) found, the first of the enqueue order"
        + (extra > 0 ? "; \(extra) committed after its last line" : "") + ")"
    )
  }

  /// Checks that a child process was killed before it finished what it was doing.
  ///
  /// - Parameters:
  ///   - label: What the child was doing, such as `"child 1 (enqueueing)"`.
  ///   - wasKilled: Whether the child ended by `SIGKILL`.
  ///   - progress: How far the child got, such as its “enqueued” lines or the server's applied
  ///     keys.
  ///   - total: Where it would have stopped by itself.
  ///   - unit: The unit of `progress`, such as `"enqueued"`.
  /// - Returns: The verdict.
  public static func killedMidRun(
    label: String,
    wasKilled: Bool,
    progress: Int,
    total: Int,
    unit: String
  ) -> Verdict {
    guard wasKilled else {
      return Verdict(
        passed: false,
        message: "\(label) was not killed with SIGKILL (\(progress) of \(total) \(unit))"
      )
    }
    return Verdict(
      passed: progress < total,
      message: progress < total
        ? "\(label) was killed with SIGKILL mid-run: \(progress) of \(total) \(unit)"
        : "\(label) was killed with SIGKILL only after it finished: \(progress) of \(total) "
          + "\(unit), so the kill tested nothing"
    )
  }

  /// Checks that the entry whose request the server was applying when the child was killed was
  /// sent again by the restarted child, with the same key, and answered from the ledger.
  ///
  /// - Parameters:
  ///   - key: The key the server was applying at the kill, or `nil` when no kill happened there.
  ///   - receipts: The requests the server received with that key.
  /// - Returns: The verdict.
  public static func resentAfterKill(key: String?, receipts: Int) -> Verdict {
    guard let key else {
      return Verdict(passed: false, message: "no kill happened while the server applied a key")
    }
    return Verdict(
      passed: receipts >= 2,
      message: receipts >= 2
        ? "the entry in flight at the kill (\(key)) was sent again after the restart with the "
          + "same key and answered from the ledger (\(receipts) requests, applied once)"
        : "the entry in flight at the kill (\(key)) reached the server \(receipts) time(s): the "
          + "restarted child never sent it again"
    )
  }

  /// Checks that nothing reached the server while it was offline, and that the outbox held every
  /// mutation meanwhile.
  ///
  /// - Parameters:
  ///   - queued: The entries the outbox held, not delivered.
  ///   - expected: The mutations made while offline.
  ///   - requestsReachingRoute: The requests of the mutations that reached the server's route.
  /// - Returns: The verdict; it fails when no mutation was made.
  public static func heldWhileOffline(
    queued: Int,
    expected: Int,
    requestsReachingRoute: Int
  ) -> Verdict {
    guard expected > 0 else {
      return Verdict(passed: false, message: "no mutation was made while offline")
    }
    let passed = queued == expected && requestsReachingRoute == 0
    return Verdict(
      passed: passed,
      message: passed
        ? "while offline the outbox held the \(expected) mutations and none reached the server"
        : "while offline the outbox held \(queued) of the \(expected) mutations, and "
          + "\(requestsReachingRoute) request(s) reached the server's route"
    )
  }

  /// Checks that the outbox is empty: every entry was delivered and none failed for good.
  ///
  /// - Parameters:
  ///   - entriesLeft: The entries left in the outbox.
  ///   - delivered: The entries delivered.
  /// - Returns: The verdict; it fails when nothing was delivered.
  public static func outboxEmptied(entriesLeft: Int, delivered: Int) -> Verdict {
    guard delivered > 0 else {
      return Verdict(passed: false, message: "the outbox delivered nothing")
    }
    return Verdict(
      passed: entriesLeft == 0,
      message: entriesLeft == 0
        ? "the outbox is empty: its \(delivered) entries were delivered and removed"
        : "the outbox still holds \(entriesLeft) entr\(entriesLeft == 1 ? "y" : "ies") after "
          + "\(delivered) deliveries"
    )
  }

  /// Checks that the server answered a repeated idempotency key with the first answer, without
  /// applying it again.
  ///
  /// - Parameters:
  ///   - firstId: The id of the post the first request created, or `nil` if none.
  ///   - replayedId: The id in the answer to the repeated request, or `nil` if it failed.
  ///   - postsBefore: The server's number of posts before the repeated request.
  ///   - postsAfter: The number afterwards.
  /// - Returns: The verdict.
  public static func replayAnsweredWithFirst(
    firstId: Int?,
    replayedId: Int?,
    postsBefore: Int,
    postsAfter: Int
  ) -> Verdict {
    guard let firstId else {
      return Verdict(passed: false, message: "no post was created, so there is nothing to repeat")
    }
    guard let replayedId else {
      return Verdict(passed: false, message: "the repeated request got no post back")
    }
    let passed = replayedId == firstId && postsAfter == postsBefore
    return Verdict(
      passed: passed,
      message: passed
        ? "the repeated key got the first answer (post \(firstId)) and created nothing"
        : "the repeated key got post \(replayedId) (first: \(firstId)), and the server's posts "
          + "went from \(postsBefore) to \(postsAfter)"
    )
  }

  private static func sample(_ keys: [String]) -> String {
    keys.count <= 3 ? keys.joined(separator: ", ") : keys.prefix(3).joined(separator: ", ") + ", …"
  }
}
