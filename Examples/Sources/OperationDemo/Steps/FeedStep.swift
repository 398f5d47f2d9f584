import IdentifiedCollections
import Operation
import OperationDemoSupport

/// Step 4: the paginated feed, loaded with `fetchNextPage()` until there is no next page.
enum FeedStep {
  /// How many times in a row the demo presses “Load more” again after a page failed.
  private static let maxFailuresInARow = 3

  static func run(_ env: DemoEnvironment) async {
    env.terminal.step(
      4,
      "The feed: client.store(for: Post.feedQuery), fetchNextPage() until the end"
    )
    env.terminal.note(
      "Pages of \(Post.FeedQuery.limit) posts; the progress line follows the store."
    )
    let store = env.client.store(for: Post.feedQuery)
    let runs = Locked(0)
    let handler = PaginatedEventHandler<PaginatedState<Int, Post.FeedPage, any Error>>(
      onStateChanged: { state, _ in
        env.terminal.progress(Self.progressText(state), isTransient: state.isLoading)
      },
      onFetchingStarted: { _ in runs.withLock { $0 += 1 } }
    )
    var failuresInARow = 0
    var calls = 0
    while store.state.hasNextPage && failuresInARow < Self.maxFailuresInARow && calls < 1_000 {
      calls += 1
      do {
        guard try await store.fetchNextPage(handler: handler) != nil else { break }
        failuresInARow = 0
      } catch {
        failuresInARow += 1
        env.terminal.event("feed", "the page failed (\(error)); pressing “Load more” again")
      }
    }
    env.terminal.progress(Self.progressText(store.state))
    env.terminal.endProgress()
    env.tallyDeduplicated(storeRuns: runs.withLock { $0 }, label: "feed")
    Self.check(store.state, env)
  }

  private static func check(
    _ state: PaginatedState<Int, Post.FeedPage, any Error>,
    _ env: DemoEnvironment
  ) {
    let pages = state.currentValue
    let posts = pages.flatMap(\.value.posts)
    let total = pages.last?.value.total ?? 0
    let expectedPages = (total + Post.FeedQuery.limit - 1) / Post.FeedQuery.limit
    env.checks.expect(
      !state.hasNextPage && total > 0,
      state.hasNextPage
        ? "the feed stopped: “Load more” failed \(Self.maxFailuresInARow) times in a row, each "
          + "time after 4 attempts (--failure-rate \(env.options.failureRate))"
        : "fetchNextPage() reached the end: no next page after page \(pages.count)"
    )
    env.checks.expect(
      total > 0 && posts.count == total && pages.count == expectedPages,
      "the store holds \(posts.count) of \(total) posts in \(pages.count) page(s) "
        + "(\(expectedPages) expected)"
    )
    let ids = posts.map(\.id)
    let expectedIds = env.server.map { Array(1...$0.catalog.posts.count) }
    env.checks.expect(
      Set(ids).count == ids.count && (expectedIds == nil || ids == expectedIds),
      "every post appears once, in order"
    )
    if let server = env.server {
      let requests = server.requestCount { $0.hasPrefix("GET /posts?") }
      let attempts = env.reporter.attempts(for: "feed")
      env.checks.expect(
        requests == attempts,
        "feed: one request per attempt: \(attempts) attempt(s), \(requests) request(s) received "
          + "by the server"
      )
    }
  }

  private static func progressText(_ state: PaginatedState<Int, Post.FeedPage, any Error>) -> String
  {
    let pages = state.currentValue
    guard let total = pages.last?.value.total else {
      return "feed  loading the first page…"
    }
    let loaded = pages.reduce(0) { $0 + $1.value.posts.count }
    let bar = ProgressBar.render(completed: loaded, total: total, unit: "posts")
    let activity = state.isLoading ? " · loading page \(pages.count + 1)" : ""
    return "feed  \(bar) · \(pages.count) page(s)\(activity)"
  }
}
