import Operation
import OperationDemoSupport

/// What every step uses: the client, the API, the output, and the embedded server's state (`nil`
/// with `--base-url`).
struct DemoEnvironment: Sendable {
  let client: OperationClient
  let api: PostsAPI
  let reporter: DemoReporter
  let checks: Checks
  let server: ServerState?
  let options: DemoOptions
  private let deduplicated = Locked(0)
  private let outsideStores = Locked([String: Int]())

  init(
    client: OperationClient,
    api: PostsAPI,
    reporter: DemoReporter,
    checks: Checks,
    server: ServerState?,
    options: DemoOptions
  ) {
    self.client = client
    self.api = api
    self.reporter = reporter
    self.checks = checks
    self.server = server
    self.options = options
  }

  var terminal: Terminal {
    self.reporter.terminal
  }

  /// The number of store runs that joined another run instead of calling the server.
  var deduplicatedCalls: Int {
    self.deduplicated.withLock { $0 }
  }

  /// Counts the runs of a store that never reached its operation: deduplication joined them to a
  /// run in flight.
  ///
  /// - Parameters:
  ///   - storeRuns: The runs the store started, as a subscriber saw them.
  ///   - label: The operation's label.
  /// - Returns: The number of deduplicated runs.
  @discardableResult
  func tallyDeduplicated(storeRuns: Int, label: String) -> Int {
    let count = max(storeRuns - self.reporter.runs(for: label), 0)
    self.deduplicated.withLock { $0 += count }
    return count
  }

  /// Counts a request that the demo sends outside the client's stores, such as an outbox delivery:
  /// the metrics check leaves its route out, and compares the server's count there with this one.
  ///
  /// - Parameter route: The request's route (``RequestRoute``).
  func recordRequestOutsideStores(route: String) {
    self.outsideStores.withLock { $0[route, default: 0] += 1 }
  }

  /// The number of requests the demo sent on a route outside the client's stores.
  ///
  /// - Parameter route: The route (``RequestRoute``).
  func requestsOutsideStores(on route: String) -> Int {
    self.outsideStores.withLock { $0[route, default: 0] }
  }

  /// What the embedded server's fault injection did to the requests whose key satisfies a
  /// predicate; `nil` with `--base-url`, where the demo injects no faults.
  ///
  /// - Parameters:
  ///   - serverKeys: Whether a server request key counts.
  ///   - mark: The server's ``ServerState/answerCount`` when the step began, so that only the
  ///     step's requests count; 0 counts every request.
  func injectedFaults(where serverKeys: (String) -> Bool, since mark: Int = 0) -> InjectedFaults? {
    guard let server = self.server else { return nil }
    let answers = server.answers(where: serverKeys, since: mark)
    return InjectedFaults(
      failureRate: server.plan.failureRate,
      requests: answers.count,
      failures: answers.count { $0 == .injectedFailure }
    )
  }

  /// Checks that a run ended with the expected value (a run that never succeeded fails the
  /// check, whatever the cause), and that each attempt was one request to the server.
  ///
  /// - Parameters:
  ///   - result: The run's outcome, or `nil` when the step stopped waiting for one.
  ///   - label: The operation's label.
  ///   - serverKeys: Whether a server request key belongs to the operation.
  ///   - mark: The server's ``ServerState/answerCount`` before the operation's first request,
  ///     when earlier steps sent requests with the same keys; 0 counts every request.
  ///   - expectation: The text of the expected value.
  ///   - isExpected: Whether a value is the expected one.
  func checkRun<Value>(
    _ result: Result<Value, any Error>?,
    label: String,
    serverKeys: @escaping (String) -> Bool,
    since mark: Int = 0,
    expectation: String,
    isExpected: (Value) -> Bool
  ) {
    let attempts = self.reporter.attempts(for: label)
    let outcome: RunOutcome =
      switch result {
      case .success(let value): .value(isExpected: isExpected(value))
      case .failure(let error): .failure("\(error)")
      case nil: .noResult
      }
    self.checks.record(
      .run(
        outcome,
        label: label,
        expectation: expectation,
        attempts: attempts,
        faults: self.injectedFaults(where: serverKeys, since: mark)
      )
    )
    if let server = self.server {
      self.checks.record(
        .requestsPerAttempt(
          label: label,
          attempts: attempts,
          requests: server.requestCount(where: serverKeys, since: mark)
        )
      )
    }
  }
}

/// Waits until a store's state satisfies a predicate.
///
/// - Returns: The state, or `nil` when the time ran out first.
func waitForState<State: OperationState & Sendable>(
  of store: OperationStore<State>,
  within timeout: Duration,
  where predicate: @escaping @Sendable (State) -> Bool
) async -> State? {
  await withTaskGroup(of: State?.self) { group in
    group.addTask {
      for await element in store.states where predicate(element.state) {
        return element.state
      }
      return nil
    }
    group.addTask {
      try? await Task.sleep(for: timeout)
      return nil
    }
    let first = await group.next() ?? nil
    group.cancelAll()
    return first
  }
}
