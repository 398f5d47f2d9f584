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
    var lastError: (any Error)?
    var calls = 0
    while store.state.hasNextPage && failuresInARow < Self.maxFailuresInARow && calls < 1_000 {
      calls += 1
      do {
        guard try await store.fetchNextPage(handler: handler) != nil else { break }
        failuresInARow = 0
        lastError = nil
      } catch {
        failuresInARow += 1
        lastError = error
        env.terminal.event("feed", "the page failed (\(error)); pressing “Load more” again")
      }
    }
    env.terminal.progress(Self.progressText(store.state))
    env.terminal.endProgress()
    env.tallyDeduplicated(storeRuns: runs.withLock { $0 }, label: "feed")
    Self.check(
      store.state,
      failuresInARow: failuresInARow,
      lastError: lastError.map { "\($0)" },
      env
    )
  }

  private static func check(
    _ state: PaginatedState<Int, Post.FeedPage, any Error>,
    failuresInARow: Int,
    lastError: String?,
    _ env: DemoEnvironment
  ) {
    let pages = state.currentValue
    let posts = pages.flatMap(\.value.posts)
    let total = pages.last?.value.total ?? 0
    let isFeedRequest: (String) -> Bool = { $0.hasPrefix("GET /posts?") }
    env.checks.record(
      .feedReachedEnd(
        hasNextPage: state.hasNextPage,
        pageCount: pages.count,
        total: total,
        failuresInARow: failuresInARow,
        lastError: lastError,
        faults: env.injectedFaults(where: isFeedRequest)
      )
    )
    env.checks.record(
      .feedHoldsEveryPost(
        postCount: posts.count,
        total: total,
        pageCount: pages.count,
        pageSize: Post.FeedQuery.limit
      )
    )
    env.checks.record(
      .postsAppearOnce(
        ids: posts.map(\.id),
        expectedIds: env.server.map { $0.catalog.newestFirst.map(\.id) }
      )
    )
    if let server = env.server {
      env.checks.record(
        .requestsPerAttempt(
          label: "feed",
          attempts: env.reporter.attempts(for: "feed"),
          requests: server.requestCount(where: isFeedRequest)
        )
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
