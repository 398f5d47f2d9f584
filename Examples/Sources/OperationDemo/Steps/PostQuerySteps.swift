import Operation
import OperationDemoSupport

/// Steps 1 and 2: one post, then a post that does not exist, each with `fetch()` as the seed
/// README does.
enum PostQuerySteps {
  static func fetchPost(_ env: DemoEnvironment) async {
    env.terminal.step(1, "A post: client.store(for: Post.query(for: 1)), then fetch()")
    env.terminal.note("Post.query(for:) is Query(id:).retry(limit: 3).deduplicated()")
    let result = await Self.fetch(id: 1, env)
    let expected = env.server?.catalog.post(id: 1)
    env.checkRun(
      result,
      label: "post 1",
      serverKeys: { $0 == "GET /posts/1" },
      expectation: expected.map { "post 1, “\($0.title)”" } ?? "post 1"
    ) { post in
      post?.id == 1 && (expected == nil || post?.title == expected?.title)
    }
  }

  static func fetchMissingPost(_ env: DemoEnvironment) async {
    env.terminal.step(2, "A post that does not exist: Post.query(for: 9999)")
    env.terminal.note("The server answers 404, which the query turns into a nil post.")
    let result = await Self.fetch(id: 9999, env)
    env.checkRun(
      result,
      label: "post 9999",
      serverKeys: { $0 == "GET /posts/9999" },
      expectation: "nil (not found)"
    ) { post in
      post == nil
    }
  }

  private static func fetch(id: Int, _ env: DemoEnvironment) async -> Result<Post?, any Error> {
    let store = env.client.store(for: Post.query(for: id))
    let printer = StatusPrinter(for: store, label: "post \(id)", terminal: env.terminal) {
      statusText($0.status, value: describe(post:))
    }
    let handler = QueryEventHandler(
      onStateChanged: printer.stateChanged,
      onFetchingStarted: printer.runStarted
    )
    let result: Result<Post?, any Error>
    do {
      result = .success(try await store.fetch(handler: handler))
    } catch {
      result = .failure(error)
    }
    env.tallyDeduplicated(storeRuns: printer.runCount, label: "post \(id)")
    return result
  }
}

/// The text of a fetched post.
func describe(post: Post?) -> String {
  post.map { "“\($0.title)” (id \($0.id))" } ?? "nil, no such post"
}
