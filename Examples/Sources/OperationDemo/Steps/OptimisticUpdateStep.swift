import Operation
import OperationDemoSupport

/// Step 7: an optimistic update shows a draft in the feed while the mutation is in flight, and is
/// rolled back exactly when the mutation fails.
enum OptimisticUpdateStep {
  private static let label = "create post · optimistic"
  private static let createKey = "POST /posts/add"

  static func run(_ env: DemoEnvironment) async {
    env.terminal.step(7, "Optimistic update, rolled back when the mutation fails")
    env.terminal.note("Post.createOptimistically is CreateMutation().retry(limit: 3)")
    env.terminal.note("  .optimisticUpdate(of: FeedQuery.State.self, matching: { _ in feed path })")
    env.terminal.note("  { pages, arguments in insert the draft on top of the first page }")
    env.terminal.note(
      env.server == nil
        ? "The client's simulated outage fails every attempt (no server to tell)."
        : "The server fails every POST /posts/add of this step with HTTP 500, and holds the first."
    )
    let feed = env.client.store(for: Post.feedQuery)
    let feedPrinter = StatusPrinter(for: feed, label: "feed · observer", terminal: env.terminal) {
      describeFeed($0)
    }
    // NB: Counts the times the draft appeared in and disappeared from the states the observer
    // received, which tells a draft shown through every attempt from one that flickers.
    let draft = Locked((isShown: false, appearances: 0, removals: 0))
    let subscription = feed.subscribe(
      with: PaginatedEventHandler(onStateChanged: { state, context in
        feedPrinter.stateChanged(state, context)
        let isShown = feedIds(state.currentValue).contains(Post.draftId)
        draft.withLock { draft in
          if isShown != draft.isShown {
            draft.isShown = isShown
            if isShown { draft.appearances += 1 } else { draft.removals += 1 }
          }
        }
      })
    )
    defer { subscription.cancel() }
    let ready = await waitForState(of: feed, within: .seconds(15)) { !$0.isLoading }
    env.checks.expect(ready != nil, "the observer's automatic fetch of the feed finished")

    let before = feed.state
    let idsBefore = feedIds(before.currentValue)
    let postsBefore = env.server?.catalog.posts.count ?? 0
    let mark = env.server?.answerCount ?? 0
    let arguments = Post.CreateMutation.Arguments(
      userId: 4,
      title: "A draft that the server refuses",
      body: "Shown at once by an optimistic update, then rolled back."
    )
    let store = env.client.store(for: Post.createOptimistically)
    let printer = StatusPrinter(for: store, label: Self.label, terminal: env.terminal) {
      statusText($0.status) { describe(post: $0) }
    }
    let handler = MutationEventHandler(
      onStateChanged: printer.stateChanged,
      onMutatingStarted: { _, context in printer.runStarted(context) }
    )
    let mutate: @Sendable () async -> Result<Post, any Error> = {
      do {
        return .success(try await store.mutate(with: arguments, handler: handler))
      } catch {
        return .failure(error)
      }
    }

    let result: Result<Post, any Error>
    var idsInFlight: [Int]?
    if let server = env.server {
      (result, idsInFlight) = await server.failingRequests(withKey: Self.createKey) {
        let hold = server.holdNextRequest(withKey: Self.createKey)
        async let mutation = mutate()
        var idsInFlight: [Int]?
        if await hold.waitForArrival(within: .seconds(10)) {
          idsInFlight = feedIds(feed.currentValue)
          env.terminal.event(
            "server",
            "holds the first POST /posts/add; the feed shows: "
              + describeFeed(feed.state)
          )
        }
        // NB: Released whether or not the request arrived, so that the mutation always ends.
        hold.release()
        return (await mutation, idsInFlight)
      }
    } else {
      env.api.traffic.isOffline = true
      result = await mutate()
      env.api.traffic.isOffline = false
    }
    let after = feed.state
    let idsAfter = feedIds(after.currentValue)

    env.tallyDeduplicated(storeRuns: printer.runCount, label: Self.label)
    let attempts = env.reporter.attempts(for: Self.label)
    if env.server != nil {
      env.checks.record(
        .draftShownInFlight(draftId: Post.draftId, idsBefore: idsBefore, idsInFlight: idsInFlight)
      )
    }
    let (appearances, removals) = draft.withLock { ($0.appearances, $0.removals) }
    env.checks.record(.draftShownOnce(appearances: appearances, removals: removals))
    let error: String? =
      switch result {
      case .success: nil
      case .failure(let error): "\(error)"
      }
    env.checks.record(
      .failedAfterEveryAttempt(
        label: Self.label,
        error: error,
        attempts: attempts,
        expectedAttempts: Post.createRetryLimit + 1
      )
    )
    env.checks.record(
      .rolledBack(
        isRestored: after.currentValue == before.currentValue
          && after.hasNextPage == before.hasNextPage,
        idsBefore: idsBefore,
        idsAfter: idsAfter,
        draftId: Post.draftId
      )
    )
    if let server = env.server {
      let answers = server.answers(where: { $0 == Self.createKey }, since: mark)
      env.checks.record(
        .everyAttemptRefused(
          label: Self.label,
          attempts: attempts,
          requests: answers.count,
          refused: answers.count { $0 == .requestedFailure }
        )
      )
      env.checks.record(
        .postNotStored(
          title: arguments.title,
          countBefore: postsBefore,
          titlesAfter: server.catalog.posts.map(\.title)
        )
      )
    }
  }
}
