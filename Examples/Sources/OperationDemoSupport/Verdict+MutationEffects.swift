// MARK: - Invalidation

extension Verdict {
  /// Checks that the server answered requests of an invalidated store after the request of the
  /// mutation that invalidated it.
  ///
  /// Fails when no request of the mutation reached its route (there is then nothing to be after),
  /// and when no request of the store followed it.
  ///
  /// - Parameters:
  ///   - store: The name of the invalidated store, such as `"feed"`.
  ///   - mutationRequest: The key of the mutation's request, such as `"POST /posts/add"`.
  ///   - requestsAfter: How many requests of the store reached their route after the last
  ///     request of the mutation that did, or `nil` when none of the mutation's did
  ///     (``RequestHistory/routedRequests(afterLast:where:)``).
  ///   - faults: What the embedded server's fault injection did to the store's requests during
  ///     the step, or `nil` without fault injection.
  /// - Returns: The verdict.
  public static func refetchedAfterMutation(
    store: String,
    mutationRequest: String,
    requestsAfter: Int?,
    faults: InjectedFaults?
  ) -> Verdict {
    guard let requestsAfter else {
      return Verdict(
        passed: false,
        message: "no \(mutationRequest) reached the server's route, so nothing was created for "
          + "the \(store) to fetch"
      )
    }
    return Verdict(
      passed: requestsAfter > 0,
      message: requestsAfter > 0
        ? "the server answered \(requestsAfter) \(store) request(s) after \(mutationRequest): "
          + "the invalidated \(store) fetched again"
        : "no \(store) request reached the server's route after \(mutationRequest): the "
          + "\(store) did not fetch again" + (faults?.clause.map { "; \($0)" } ?? "")
    )
  }

  /// Checks that a list of posts holds a new post that it did not hold before.
  ///
  /// - Parameters:
  ///   - id: The new post's identifier, or `nil` when no post was created.
  ///   - idsBefore: The posts' identifiers before the post was created.
  ///   - idsAfter: The posts' identifiers afterwards.
  /// - Returns: The verdict; it fails without a new post, and when the post was there before
  ///   (its presence afterwards would then prove nothing).
  public static func feedShowsNewPost(id: Int?, idsBefore: [Int], idsAfter: [Int]) -> Verdict {
    guard let id else {
      return Verdict(passed: false, message: "no post was created, so the feed cannot show it")
    }
    guard !idsBefore.contains(id) else {
      return Verdict(
        passed: false,
        message: "the feed held post \(id) before it was created: its id says nothing"
      )
    }
    guard let position = idsAfter.firstIndex(of: id) else {
      return Verdict(
        passed: false,
        message: "the feed does not hold the new post \(id) (\(idsAfter.count) post(s), "
          + "\(Self.describe(idsAfter)))"
      )
    }
    return Verdict(
      passed: true,
      message: "the feed holds the new post \(id), at position \(position + 1) of "
        + "\(idsAfter.count)"
    )
  }
}

// MARK: - Optimistic updates

extension Verdict {
  /// Checks that, while the mutation was in flight, the feed showed the draft on top of exactly
  /// what it showed before.
  ///
  /// - Parameters:
  ///   - draftId: The draft's identifier.
  ///   - idsBefore: The feed's identifiers before the mutation.
  ///   - idsInFlight: The feed's identifiers while the mutation was in flight, or `nil` when the
  ///     step never saw the mutation in flight (its request never reached the server).
  /// - Returns: The verdict.
  public static func draftShownInFlight(
    draftId: Int,
    idsBefore: [Int],
    idsInFlight: [Int]?
  ) -> Verdict {
    guard let idsInFlight else {
      return Verdict(
        passed: false,
        message: "the mutation's request never reached the server: nothing was in flight"
      )
    }
    guard idsInFlight.first == draftId else {
      return Verdict(
        passed: false,
        message: "while the request was in flight the feed did not show the draft on top "
          + "(\(Self.describe(idsInFlight)))"
      )
    }
    return Verdict(
      passed: idsInFlight == [draftId] + idsBefore,
      message: idsInFlight == [draftId] + idsBefore
        ? "while the request was in flight the feed showed the draft on top of its "
          + "\(idsBefore.count) post(s)"
        : "while the request was in flight the feed showed the draft, but the other posts "
          + "changed (\(Self.describe(idsBefore)) before, \(Self.describe(idsInFlight)) with it)"
    )
  }

  /// Checks that an observer of the feed saw the draft appear once and disappear once: it stayed
  /// through every attempt of the mutation, instead of being rolled back and shown again around
  /// each retry.
  ///
  /// - Parameters:
  ///   - appearances: How many times the draft appeared in the states the observer received.
  ///   - removals: How many times it disappeared from them.
  /// - Returns: The verdict; it fails when the observer never saw the draft.
  public static func draftShownOnce(appearances: Int, removals: Int) -> Verdict {
    guard appearances > 0 else {
      return Verdict(passed: false, message: "the feed's observer never saw the draft")
    }
    return Verdict(
      passed: appearances == 1 && removals == 1,
      message: appearances == 1 && removals == 1
        ? "the feed's observer saw the draft appear once and go once, when the mutation failed"
        : "the feed's observer saw the draft appear \(appearances) time(s) and go "
          + "\(removals) time(s) (once each expected: it must stay through the retries)"
    )
  }

  /// Checks that a mutation that the server was told to fail failed, after all of its attempts.
  ///
  /// - Parameters:
  ///   - label: The mutation's label.
  ///   - error: The text of the error the mutation threw, or `nil` if it succeeded.
  ///   - attempts: The attempts the mutation made.
  ///   - expectedAttempts: The attempts it makes before giving up (1 + its retry limit).
  /// - Returns: The verdict.
  public static func failedAfterEveryAttempt(
    label: String,
    error: String?,
    attempts: Int,
    expectedAttempts: Int
  ) -> Verdict {
    guard let error else {
      return Verdict(
        passed: false,
        message: "\(label): the mutation succeeded although every attempt was to fail "
          + "(\(attempts) attempt(s))"
      )
    }
    return Verdict(
      passed: attempts == expectedAttempts,
      message: "\(label): the mutation failed after \(attempts) attempt(s) "
        + "(\(expectedAttempts) expected: 1 + \(expectedAttempts - 1) retries), the last with "
        + "“\(error)”"
    )
  }

  /// Checks that the server received one request per attempt and refused each one before its
  /// route.
  ///
  /// - Parameters:
  ///   - label: The mutation's label.
  ///   - attempts: The attempts the mutation made.
  ///   - requests: The requests the server received for it.
  ///   - refused: How many of them the server failed on purpose before the route.
  /// - Returns: The verdict; it fails when the server received no request.
  public static func everyAttemptRefused(
    label: String,
    attempts: Int,
    requests: Int,
    refused: Int
  ) -> Verdict {
    guard requests > 0 else {
      return Verdict(
        passed: false,
        message: "\(label): the server received no request (\(attempts) attempt(s))"
      )
    }
    return Verdict(
      passed: requests == attempts && refused == requests,
      message: "\(label): the server received \(requests) request(s) for \(attempts) "
        + "attempt(s) and failed \(refused) of them with HTTP 500 before the route"
    )
  }

  /// Checks that a rolled-back optimistic update left the feed exactly as it was.
  ///
  /// - Parameters:
  ///   - isRestored: Whether the feed's value equals the value before the mutation.
  ///   - idsBefore: The feed's identifiers before the mutation.
  ///   - idsAfter: The feed's identifiers afterwards.
  ///   - draftId: The draft's identifier.
  /// - Returns: The verdict; it fails when the feed was empty before (nothing to compare).
  public static func rolledBack(
    isRestored: Bool,
    idsBefore: [Int],
    idsAfter: [Int],
    draftId: Int
  ) -> Verdict {
    guard !idsBefore.isEmpty else {
      return Verdict(
        passed: false,
        message: "the feed was empty before the mutation: there is nothing to compare"
      )
    }
    if idsAfter.contains(draftId) {
      return Verdict(passed: false, message: "the feed still shows the draft after the failure")
    }
    return Verdict(
      passed: isRestored,
      message: isRestored
        ? "after the failure the feed's value equals its value before the mutation "
          + "(\(idsBefore.count) post(s), the draft gone)"
        : "after the failure the feed's value differs from its value before the mutation "
          + "(\(Self.describe(idsBefore)) before, \(Self.describe(idsAfter)) after)"
    )
  }

  /// Checks that the server did not keep a post whose creation failed.
  ///
  /// - Parameters:
  ///   - title: The title of the post that was not to be created.
  ///   - countBefore: The posts the server held before the mutation.
  ///   - titlesAfter: The titles of the posts it holds afterwards.
  /// - Returns: The verdict.
  public static func postNotStored(
    title: String,
    countBefore: Int,
    titlesAfter: [String]
  ) -> Verdict {
    let stored = titlesAfter.contains(title)
    return Verdict(
      passed: !stored && titlesAfter.count == countBefore,
      message: stored
        ? "the server stored “\(title)” although every attempt failed"
        : "the server holds \(titlesAfter.count) post(s), \(countBefore) before the mutation, "
          + "none titled “\(title)”"
    )
  }

  /// The first identifiers of a list, for a message.
  private static func describe(_ ids: [Int]) -> String {
    guard !ids.isEmpty else { return "none" }
    let shown = ids.prefix(5).map(String.init).joined(separator: ", ")
    return ids.count > 5 ? "\(shown), …" : shown
  }
}
