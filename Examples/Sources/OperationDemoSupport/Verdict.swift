/// What one of the demo's checks concluded: whether it passed, and the line that says why.
///
/// The checks are pure functions of what a step observed, so that each one is unit-tested,
/// including on the inputs that must fail it (no posts, no attempt, an operation that never
/// succeeded): a check that passes on empty input is a check that cannot fail.
///
/// ```swift
/// let verdict = Verdict.postsAppearOnce(ids: [], expectedIds: nil)
/// verdict.passed  // false: there are no posts to check
/// ```
public struct Verdict: Hashable, Sendable {
  /// Whether the check passed.
  public var passed: Bool

  /// The line the demo prints after the check mark or the cross.
  public var message: String

  /// Creates a verdict.
  ///
  /// - Parameters:
  ///   - passed: Whether the check passed.
  ///   - message: The line that says what was checked and what was seen.
  public init(passed: Bool, message: String) {
    self.passed = passed
    self.message = message
  }
}

/// How a step's run of an operation ended, as the demo saw it.
public enum RunOutcome: Hashable, Sendable {
  /// The operation returned a value; `isExpected` says whether it is the one the step expects.
  case value(isExpected: Bool)
  /// The operation failed after its retries, with the text of its last error.
  case failure(String)
  /// The store had no result when the step stopped waiting for one.
  case noResult
}

/// What the embedded server's fault injection did to a step's requests.
///
/// `nil` wherever the demo runs against another server (`--base-url`), which injects no faults.
public struct InjectedFaults: Hashable, Sendable {
  /// The `--failure-rate` the embedded server runs with.
  public var failureRate: Double

  /// How many requests of the step the server received.
  public var requests: Int

  /// How many of them the server failed on purpose with HTTP 500.
  public var failures: Int

  /// Creates the record of a step's injected faults.
  ///
  /// - Parameters:
  ///   - failureRate: The `--failure-rate` the embedded server runs with.
  ///   - requests: How many requests of the step the server received.
  ///   - failures: How many of them it failed with HTTP 500.
  public init(failureRate: Double, requests: Int, failures: Int) {
    self.failureRate = failureRate
    self.requests = requests
    self.failures = failures
  }

  /// The clause that blames the fault injection, or `nil` when it failed no request.
  var clause: String? {
    guard self.failures > 0 else { return nil }
    return "the embedded server injected HTTP 500 into \(self.failures) of its "
      + "\(self.requests) request(s) (--failure-rate \(self.failureRate))"
  }
}

extension Verdict {
  /// Judges a run of an operation: it passes only with the expected value.
  ///
  /// An operation that never succeeded did not do the step's work, whatever the reason, so every
  /// step judges a failure the same way: as a failure.
  ///
  /// - Parameters:
  ///   - outcome: How the run ended.
  ///   - label: The operation's label, such as `"post 1"`.
  ///   - expectation: The text of the expected value, such as `"post 1"`.
  ///   - attempts: The attempts the operation made.
  ///   - faults: What the embedded server's fault injection did to the operation's requests, or
  ///     `nil` without fault injection.
  /// - Returns: The verdict.
  public static func run(
    _ outcome: RunOutcome,
    label: String,
    expectation: String,
    attempts: Int,
    faults: InjectedFaults?
  ) -> Verdict {
    switch outcome {
    case .value(isExpected: true):
      return Verdict(passed: true, message: "\(label): the store holds \(expectation)")
    case .value(isExpected: false):
      return Verdict(passed: false, message: "\(label): the store does not hold \(expectation)")
    case .failure(let error):
      var message = "\(label): the operation never succeeded: \(attempts) attempt(s) failed, "
      message += "the last with “\(error)”"
      if let clause = faults?.clause {
        message += "; \(clause)"
      }
      return Verdict(passed: false, message: message)
    case .noResult:
      return Verdict(
        passed: false,
        message: "\(label): the store had no result when the step stopped waiting for one"
      )
    }
  }

  /// Checks that every attempt of an operation was exactly one request to the server.
  ///
  /// Fails when the operation made no attempt: there is then nothing to compare.
  ///
  /// - Parameters:
  ///   - label: The operation's label.
  ///   - attempts: The attempts the operation made.
  ///   - requests: The requests the server received for it.
  /// - Returns: The verdict.
  public static func requestsPerAttempt(label: String, attempts: Int, requests: Int) -> Verdict {
    guard attempts > 0 else {
      return Verdict(
        passed: false,
        message: "\(label): the operation made no attempt (\(requests) request(s) received by "
          + "the server)"
      )
    }
    return Verdict(
      passed: attempts == requests,
      message: "\(label): one request per attempt: \(attempts) attempt(s), \(requests) "
        + "request(s) received by the server"
    )
  }

  /// Checks that every request the client sent reached the embedded server.
  ///
  /// Fails when the client sent nothing: there is then nothing to compare.
  ///
  /// - Parameters:
  ///   - sent: The requests the client sent.
  ///   - received: The requests the server received.
  /// - Returns: The verdict.
  public static func requestsReachedServer(sent: Int, received: Int) -> Verdict {
    guard sent > 0 else {
      return Verdict(passed: false, message: "the client sent no request to the server")
    }
    return Verdict(
      passed: sent == received,
      message: sent == received
        ? "every request the client sent reached the server (\(sent))"
        : "the client sent \(sent) request(s), the server received \(received)"
    )
  }

  /// Checks that two observers of one store share one run of its operation.
  ///
  /// - Parameters:
  ///   - storeRuns: The runs of the store (one automatic, then one per `fetch()`).
  ///   - operationRuns: The runs of the operation's body.
  ///   - expectedStoreRuns: The runs of the store the step starts.
  /// - Returns: The verdict.
  public static func sharedRuns(
    storeRuns: Int,
    operationRuns: Int,
    expectedStoreRuns: Int
  ) -> Verdict {
    Verdict(
      passed: storeRuns == expectedStoreRuns && operationRuns == 1,
      message: "\(storeRuns) run(s) of the store (\(expectedStoreRuns) expected: 1 automatic + "
        + "\(expectedStoreRuns - 1) fetch()) ran the query \(operationRuns) time(s): "
        + "\(max(storeRuns - operationRuns, 0)) deduplicated"
    )
  }

  /// Checks that two observers of one store saw the same final status.
  ///
  /// - Parameters:
  ///   - first: The last status the first observer printed, or `nil` if none.
  ///   - second: The last status the second observer printed, or `nil` if none.
  /// - Returns: The verdict; it fails when either observer saw nothing.
  public static func sameFinalStatus(_ first: String?, _ second: String?) -> Verdict {
    guard let first, let second else {
      return Verdict(
        passed: false,
        message: "an observer saw no status: \(first ?? "none") and \(second ?? "none")"
      )
    }
    return Verdict(
      passed: first == second,
      message: first == second
        ? "both observers saw the same final status: \(first)"
        : "the observers saw different final statuses: \(first) and \(second)"
    )
  }

  /// Checks that the feed's `fetchNextPage()` loop reached the last page.
  ///
  /// - Parameters:
  ///   - hasNextPage: Whether the store still has a next page.
  ///   - pageCount: The pages the store holds.
  ///   - total: The number of posts the server reported, `0` if no page arrived.
  ///   - failuresInARow: How many times in a row “Load more” failed when the loop stopped.
  ///   - lastError: The text of the last page's error, if the last call failed.
  ///   - faults: What the embedded server's fault injection did to the feed's requests, or `nil`
  ///     without fault injection.
  /// - Returns: The verdict.
  public static func feedReachedEnd(
    hasNextPage: Bool,
    pageCount: Int,
    total: Int,
    failuresInARow: Int,
    lastError: String?,
    faults: InjectedFaults?
  ) -> Verdict {
    if hasNextPage {
      var message = "the feed stopped before its end: “Load more” failed \(failuresInARow) "
      message += "time(s) in a row"
      if let lastError {
        message += ", the last with “\(lastError)”"
      }
      if let clause = faults?.clause {
        message += "; \(clause)"
      }
      return Verdict(passed: false, message: message)
    }
    guard total > 0 else {
      return Verdict(passed: false, message: "the feed ended without a post: the server has none")
    }
    return Verdict(
      passed: true,
      message: "fetchNextPage() reached the end: no next page after page \(pageCount)"
    )
  }

  /// Checks that the feed holds every post the server reported, in full pages.
  ///
  /// - Parameters:
  ///   - postCount: The posts the store holds.
  ///   - total: The number of posts the server reported, `0` if no page arrived.
  ///   - pageCount: The pages the store holds.
  ///   - pageSize: The posts per page.
  /// - Returns: The verdict; it fails when the server reported no post.
  public static func feedHoldsEveryPost(
    postCount: Int,
    total: Int,
    pageCount: Int,
    pageSize: Int
  ) -> Verdict {
    guard total > 0 else {
      return Verdict(
        passed: false,
        message: "the store holds \(postCount) post(s) in \(pageCount) page(s), and no page "
          + "reported how many posts the server has"
      )
    }
    let expectedPages = (total + pageSize - 1) / pageSize
    return Verdict(
      passed: postCount == total && pageCount == expectedPages,
      message: "the store holds \(postCount) of \(total) posts in \(pageCount) page(s) "
        + "(\(expectedPages) expected)"
    )
  }

  /// Checks that every post appears once, in order.
  ///
  /// - Parameters:
  ///   - ids: The ids of the posts, in the feed's order.
  ///   - expectedIds: The ids the server holds, in order, or `nil` when the demo does not know
  ///     them (`--base-url`).
  /// - Returns: The verdict; it fails when there is no post to check.
  public static func postsAppearOnce(ids: [Int], expectedIds: [Int]?) -> Verdict {
    guard !ids.isEmpty else {
      return Verdict(passed: false, message: "no post to check: the feed holds none")
    }
    var seen = Set<Int>()
    let repeated = ids.filter { !seen.insert($0).inserted }
    if !repeated.isEmpty {
      let list = repeated.prefix(5).map(String.init).joined(separator: ", ")
      return Verdict(passed: false, message: "post(s) \(list) appear more than once")
    }
    if let expectedIds, ids != expectedIds {
      return Verdict(
        passed: false,
        message: "the feed holds \(ids.count) distinct post(s), but not the server's "
          + "\(expectedIds.count) in order"
      )
    }
    return Verdict(passed: true, message: "every post appears once, in order (\(ids.count))")
  }
}
