import Operation
import OperationDemoSupport

/// Step 6: a mutation that invalidates the feed; the observed feed fetches again and shows the
/// new post.
enum InvalidationStep {
  private static let label = "create post · invalidates feed"

  static func run(_ env: DemoEnvironment) async {
    env.terminal.step(6, "Invalidation: a mutation with .invalidates(matching:) refreshes the feed")
    env.terminal.note("Post.createInvalidatingFeed is CreateMutation().retry(limit: 3)")
    env.terminal.note("  .invalidates(matching: { _ in Post.feedQuery.path })")
    env.terminal.note(
      "An observer subscribes to the feed. The store is stale, so it runs; a plain run"
    )
    env.terminal.note(
      "of a paginated store fetches the first page again and replaces the list with"
    )
    env.terminal.note("it. The server lists the newest post first, so that page shows new posts.")
    let feed = env.client.store(for: Post.feedQuery)
    let feedPrinter = StatusPrinter(for: feed, label: "feed · observer", terminal: env.terminal) {
      describeFeed($0)
    }
    let subscription = feed.subscribe(
      with: PaginatedEventHandler(onStateChanged: feedPrinter.stateChanged)
    )
    defer { subscription.cancel() }
    let ready = await waitForState(of: feed, within: .seconds(15)) { !$0.isLoading }
    env.checks.expect(ready != nil, "the observer's automatic fetch of the feed finished")

    let idsBefore = feedIds(feed.currentValue)
    let mark = env.server?.answerCount ?? 0
    let feedAttemptsBefore = env.reporter.attempts(for: "feed")
    let arguments = Post.CreateMutation.Arguments(
      userId: 3,
      title: "Invalidation shows this post",
      body: "Created by the demo; the feed fetches again because the mutation invalidates it."
    )
    env.terminal.note(
      "mutate(with:) “\(arguments.title)”; it returns once the feed has fetched again."
    )
    let store = env.client.store(for: Post.createInvalidatingFeed)
    let printer = StatusPrinter(for: store, label: Self.label, terminal: env.terminal) {
      statusText($0.status) { describe(post: $0) }
    }
    let handler = MutationEventHandler(
      onStateChanged: printer.stateChanged,
      onMutatingStarted: { _, context in printer.runStarted(context) }
    )
    let result: Result<Post, any Error>
    do {
      result = .success(try await store.mutate(with: arguments, handler: handler))
    } catch {
      result = .failure(error)
    }
    // NB: Read at once: the modifier returns only after the feed's rerun has ended.
    let idsAfter = feedIds(feed.currentValue)
    let isInvalidated = feed.isInvalidated

    env.tallyDeduplicated(storeRuns: printer.runCount, label: Self.label)
    env.checkRun(
      result,
      label: Self.label,
      serverKeys: { $0 == "POST /posts/add" },
      since: mark,
      expectation: "the new post"
    ) { post in
      post.title == arguments.title && post.id > 0
    }
    let createdId = try? result.get().id
    let isFeedRequest: @Sendable (String) -> Bool = { $0.hasPrefix("GET /posts?") }
    if let server = env.server {
      env.checks.record(
        .refetchedAfterMutation(
          store: "feed",
          mutationRequest: "POST /posts/add",
          requestsAfter: server.requestHistory.routedRequests(
            afterLast: "POST /posts/add",
            where: isFeedRequest
          ),
          faults: env.injectedFaults(where: isFeedRequest, since: mark)
        )
      )
      env.checks.record(.feedShowsNewPost(id: createdId, idsBefore: idsBefore, idsAfter: idsAfter))
    } else {
      let attempts = env.reporter.attempts(for: "feed") - feedAttemptsBefore
      env.checks.expect(
        attempts > 0,
        "the feed fetched again after the mutation: \(attempts) page request(s) sent"
      )
      let shows = createdId.map { idsAfter.contains($0) } ?? false
      env.terminal.note(
        shows
          ? "The feed shows the new post."
          : "The feed does not show the new post: a server such as dummyjson.com does not keep it."
      )
    }
    env.checks.expect(
      !isInvalidated,
      isInvalidated
        ? "the feed is still invalidated: its rerun failed"
          + (feed.state.error.map { " (\($0))" } ?? "")
        : "the feed is no longer invalidated: the rerun that followed the invalidation succeeded"
    )
  }
}

/// The identifiers of the feed's posts, in order.
func feedIds(_ pages: Pages<Int, Post.FeedPage>) -> [Int] {
  pages.flatMap { $0.value.posts.map(\.id) }
}

/// The text of the feed's state: the pages and the post on top.
func describeFeed(_ state: PaginatedState<Int, Post.FeedPage, any Error>) -> String {
  if state.isLoading {
    return "loading"
  }
  let posts = state.currentValue.flatMap(\.value.posts)
  let top = posts.first.map { "top: \(describe(post: $0))" } ?? "no post"
  let error = state.error.map { " · last error: \($0)" } ?? ""
  return "\(state.currentValue.count) page(s), \(posts.count) posts, \(top)\(error)"
}
