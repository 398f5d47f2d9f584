import Operation
import OperationDemoSupport

/// Step 3: two observers of one post share one store, and the post is fetched once.
enum SharedStoreStep {
  static func run(_ env: DemoEnvironment) async {
    env.terminal.step(3, "Two observers, one store: the fetch runs once")
    let storeA = env.client.store(for: Post.query(for: 2))
    let storeB = env.client.store(for: Post.query(for: 2))
    env.checks.expect(
      storeA === storeB,
      "the client returns the same store for the same query to both observers"
    )
    let describeState: @Sendable (QueryState<Post?, any Error>) -> String = {
      statusText($0.status, value: describe(post:))
    }
    let printerA = StatusPrinter(
      for: storeA,
      label: "post 2 · observer A",
      terminal: env.terminal,
      describe: describeState
    )
    let printerB = StatusPrinter(
      for: storeB,
      label: "post 2 · observer B",
      terminal: env.terminal,
      describe: describeState
    )
    env.terminal.note("Observer A subscribes (the store starts fetching by itself), then B.")
    let subscriptionA = storeA.subscribe(
      with: QueryEventHandler(
        onStateChanged: printerA.stateChanged,
        onFetchingStarted: printerA.runStarted
      )
    )
    let subscriptionB = storeB.subscribe(
      with: QueryEventHandler(onStateChanged: printerB.stateChanged)
    )
    env.terminal.note("Both observers also call fetch() while it loads (pull to refresh).")
    async let fetchA = try? storeA.fetch()
    async let fetchB = try? storeB.fetch()
    _ = await (fetchA, fetchB)
    let final = await waitForState(of: storeA, within: .seconds(10)) { $0.status.isFinished }

    let bodyRuns = env.reporter.runs(for: "post 2")
    env.tallyDeduplicated(storeRuns: printerA.runCount, label: "post 2")
    env.checks.record(
      .sharedRuns(storeRuns: printerA.runCount, operationRuns: bodyRuns, expectedStoreRuns: 3)
    )
    env.checks.record(.sameFinalStatus(printerA.lastStatus, printerB.lastStatus))
    env.checkRun(
      final?.status.result,
      label: "post 2",
      serverKeys: { $0 == "GET /posts/2" },
      expectation: "post 2"
    ) { post in
      post?.id == 2
    }
    subscriptionA.cancel()
    subscriptionB.cancel()
  }
}
