import Operation
import OperationDemoSupport

/// Step 8: a store that failed while offline runs again by itself when the network comes back.
enum ReconnectStep {
  static func run(_ env: DemoEnvironment) async {
    env.terminal.step(8, "Offline, then online: the store re-runs by itself")
    env.terminal.note(
      "Post.query(for:) has .rerunOnChange(of: .connected(to: observer)). The observer is a"
    )
    env.terminal.note(
      env.server == nil
        ? "MockNetworkObserver that the demo flips with the client's simulated outage."
        : "MockNetworkObserver that the demo flips with the server's offline switch."
    )
    let outageStart = ContinuousClock.now
    Self.setOffline(true, env)
    DemoNetwork.observer.send(status: .disconnected)
    env.terminal.event("network", "disconnected")

    let store = env.client.store(for: Post.query(for: 3))
    let printer = StatusPrinter(for: store, label: "post 3 · observer", terminal: env.terminal) {
      statusText($0.status, value: describe(post:))
    }
    let subscription = store.subscribe(
      with: QueryEventHandler(
        onStateChanged: printer.stateChanged,
        onFetchingStarted: printer.runStarted
      )
    )
    let failed = await waitForState(of: store, within: .seconds(15)) { $0.status.isFailure }
    env.checks.expect(
      failed != nil,
      "while offline, the observer's automatic fetch failed"
        + (failed?.error.map { " (\($0))" } ?? "")
    )

    try? await Task.sleep(until: max(outageStart + env.options.offlineDuration, .now))
    Self.setOffline(false, env)
    env.terminal.event("network", "connected")
    DemoNetwork.observer.send(status: .connected)
    let final = await waitForState(of: store, within: .seconds(15)) { state in
      state.status.isFinished && printer.runCount >= 2
    }
    env.checks.expect(
      printer.runCount == 2,
      "the store ran \(printer.runCount) time(s): the automatic fetch, then the re-run on "
        + "reconnection (the demo never calls fetch() here)"
    )
    env.tallyDeduplicated(storeRuns: printer.runCount, label: "post 3")
    env.checkRun(
      final?.status.result,
      label: "post 3",
      serverKeys: { $0 == "GET /posts/3" },
      expectation: "post 3 after the re-run"
    ) { post in
      post?.id == 3
    }
    subscription.cancel()
  }

  private static func setOffline(_ isOffline: Bool, _ env: DemoEnvironment) {
    if let server = env.server {
      server.isOffline = isOffline
    } else {
      env.api.traffic.isOffline = isOffline
    }
  }
}
