import Operation
import OperationDemoSupport

/// What the embedded server knows: its posts, its faults, its offline switch and every request it
/// received, so that the client's steps can be checked against what really went over the wire.
final class ServerState: Sendable {
  /// How the server answered one request.
  enum Answer: Hashable, Sendable {
    /// The fault injection failed the request with HTTP 500.
    case injectedFailure
    /// A step asked the server to fail requests with the request's key: HTTP 500
    /// (``failingRequests(withKey:during:)``).
    case requestedFailure
    /// The offline switch was on: HTTP 503.
    case offline
    /// The route answered (200, 201, 400 or 404).
    case handled
  }

  let plan: FaultPlan
  /// The users of `GET /users/{id}` and `GET /users?ids=`.
  let users = UserDirectory()
  private let posts: Locked<PostCatalog>
  private let ledger = Locked(RequestLedger())
  /// Every request's key, route and answer, in the order received.
  private let log = Locked([(key: String, route: String, answer: Answer)]())
  private let isOfflineSwitch = Locked(false)
  /// The keys of the requests to fail, with the number of ``failingRequests(withKey:during:)``
  /// calls in progress for each.
  private let failingKeys = Locked([String: Int]())
  /// The holds waiting for their request, by key (``holdNextRequest(withKey:)``).
  private let holds = Locked([String: RequestHold]())
  private let idempotency = Locked(IdempotencyLedger<[UInt8]>())
  /// The outbox items applied by `POST /outbox/lanes/{lane}`, in order: the route's side effect,
  /// recorded apart from the ledger that decides whether to apply.
  private let outboxItems = Locked([AppliedOutboxItem]())
  private let appliedHook = Locked<(@Sendable (AppliedOutboxItem) -> Void)?>(nil)
  /// The snapshot of the client that `GET /debug/operations` reports, once the demo registers it.
  private let snapshotProvider = Locked<(@Sendable () -> OperationClientSnapshot?)?>(nil)
  /// The client's metrics that `GET /debug/metrics` serves, once the demo registers them.
  private let metricsProvider = Locked<(@Sendable () -> String)?>(nil)
  /// The number of debug requests answered, which the request counts and history leave out.
  private let debugRequests = Locked(0)
  /// The requests of `GET /fleet/items/{key}`, by key and instance, and their holds.
  let fleetUpstream = FleetUpstream()
  /// The ids of each `GET /users?ids=` request that reached its route, in order.
  private let userBatchLog = Locked([[Int]]())

  init(plan: FaultPlan, catalog: PostCatalog = PostCatalog()) {
    self.plan = plan
    self.posts = Locked(catalog)
  }

  /// The posts, including those added by `POST /posts/add`.
  var catalog: PostCatalog {
    self.posts.withLock { $0 }
  }

  /// Adds a post, as `POST /posts/add` does.
  func addPost(_ post: NewPost) -> CatalogPost {
    self.posts.withLock { $0.add(post) }
  }

  /// The requests received so far, in order.
  var requestHistory: RequestHistory {
    self.log.withLock { log in
      log.reduce(into: RequestHistory()) {
        $0.record(key: $1.key, reachedRoute: $1.answer == .handled)
      }
    }
  }

  /// Whether the server answers every request with HTTP 503, as if it could not be reached.
  var isOffline: Bool {
    get { self.isOfflineSwitch.withLock { $0 } }
    set { self.isOfflineSwitch.withLock { $0 = newValue } }
  }

  /// Answers every request with `key` with HTTP 500 while `body` runs, whatever the failure
  /// rate: every attempt of a retried request fails, deterministically.
  ///
  /// - Parameters:
  ///   - key: The requests' key, such as `"POST /posts/add"`.
  ///   - body: The work during which the requests fail.
  /// - Returns: What `body` returns.
  func failingRequests<Result>(
    withKey key: String,
    during body: () async throws -> Result
  ) async rethrows -> Result {
    self.failingKeys.withLock { $0[key, default: 0] += 1 }
    defer {
      self.failingKeys.withLock { keys in
        keys[key, default: 1] -= 1
        if keys[key] == 0 { keys[key] = nil }
      }
    }
    return try await body()
  }

  /// Holds the next request with `key` before it is answered, until the returned hold is
  /// released.
  ///
  /// - Parameter key: The request's key.
  /// - Returns: The hold, which tells when the request arrives and lets it go on.
  func holdNextRequest(withKey key: String) -> RequestHold {
    let hold = RequestHold(key: key)
    let replaced = self.holds.withLock { $0.updateValue(hold, forKey: key) }
    replaced?.release()
    return hold
  }

  /// Waits while a step holds the request (``holdNextRequest(withKey:)``); returns at once for a
  /// request that is not held.
  func waitIfHeld(key: String) async {
    guard let hold = self.holds.withLock({ $0.removeValue(forKey: key) }) else { return }
    await hold.hold()
  }

  /// Records a request and decides how the server answers it.
  ///
  /// - Parameters:
  ///   - key: The request's key, such as `GET /posts/1`.
  ///   - route: The request's route, such as `GET /posts/{id}` (``RequestRoute``).
  /// - Returns: How the server answers.
  func admit(key: String, route: String) -> Answer {
    let occurrence = self.ledger.withLock { $0.record(key) }
    let answer: Answer =
      if self.isOffline {
        .offline
      } else if self.failingKeys.withLock({ $0[key] != nil }) {
        .requestedFailure
      } else if !RequestRoute.exemptFromInjectedFailures.contains(route),
        self.plan.injectsFailure(forRequest: key, occurrence: occurrence)
      {
        .injectedFailure
      } else {
        .handled
      }
    self.log.withLock { $0.append((key, route, answer)) }
    return answer
  }

  /// The number of requests received.
  var totalRequests: Int {
    self.ledger.withLock { $0.total }
  }

  /// The number of requests received per route, such as `["GET /posts/{id}": 4]`: what the
  /// metrics check compares with the requests that the client's metrics imply.
  var requestCountsByRoute: [String: Int] {
    self.log.withLock { log in
      log.reduce(into: [String: Int]()) { $0[$1.route, default: 0] += 1 }
    }
  }

  /// The number of requests received with a key, such as `"GET /posts/1"`.
  func requestCount(for key: String) -> Int {
    self.ledger.withLock { $0.count(for: key) }
  }

  /// The number of requests answered so far: a mark for ``answers(where:since:)``, so that a step
  /// counts its own requests only.
  var answerCount: Int {
    self.log.withLock { $0.count }
  }

  /// The number of requests received whose key satisfies a predicate.
  ///
  /// - Parameters:
  ///   - isIncluded: Whether a request's key counts.
  ///   - mark: An ``answerCount`` read earlier: only the requests received since count.
  func requestCount(where isIncluded: (String) -> Bool, since mark: Int = 0) -> Int {
    self.answers(where: isIncluded, since: mark).count
  }

  /// The answers given to the requests whose key satisfies a predicate, in order.
  ///
  /// - Parameters:
  ///   - isIncluded: Whether a request's key counts.
  ///   - mark: An ``answerCount`` read earlier: only the requests received since count.
  func answers(where isIncluded: (String) -> Bool, since mark: Int = 0) -> [Answer] {
    self.log.withLock { log in
      log.dropFirst(mark).filter { isIncluded($0.key) }.map(\.answer)
    }
  }

  // MARK: - Users

  /// Records the ids of a `GET /users?ids=` request, as its route answers it.
  func recordUserBatch(_ ids: [Int]) {
    self.userBatchLog.withLock { $0.append(ids) }
  }

  /// The ids of every `GET /users?ids=` request answered so far, in order: the batch step reads
  /// the requests of each of its rounds from the count before the round.
  var userBatches: [[Int]] {
    self.userBatchLog.withLock { $0 }
  }

  // MARK: - Idempotency

  /// Applies a request once per idempotency key: `apply` runs for a new key, and a repeated key
  /// gets the first answer (or a conflict, for a key that came with another path or body).
  ///
  /// NB: `apply` runs under the ledger's lock, so that two requests with one key (a resend
  /// racing the request of a process that died) cannot both apply it.
  ///
  /// - Parameters:
  ///   - key: The request's `Idempotency-Key`.
  ///   - path: The request's path.
  ///   - body: The request's body.
  ///   - apply: Applies the request and returns the body of its answer.
  /// - Returns: What the ledger decided, with the answer's body.
  func applyOnce(
    key: String,
    path: String,
    body: [UInt8],
    apply: () throws -> [UInt8]
  ) rethrows -> IdempotencyLedger<[UInt8]>.Outcome {
    try self.idempotency.withLock { ledger in
      try ledger.receive(key: key, path: path, body: body, apply: apply)
    }
  }

  /// The idempotency keys received so far: which were applied, in which order per path, and how
  /// many times each was received.
  var idempotencyLedger: IdempotencyLedger<[UInt8]> {
    self.idempotency.withLock { $0 }
  }

  /// Records an outbox item that `POST /outbox/lanes/{lane}` applies.
  ///
  /// - Parameters:
  ///   - key: The item's idempotency key.
  ///   - path: The lane's path.
  /// - Returns: The item, numbered in the order of application from 1.
  func recordOutboxItem(key: String, path: String) -> AppliedOutboxItem {
    self.outboxItems.withLock { items in
      let item = AppliedOutboxItem(key: key, path: path, sequence: items.count + 1)
      items.append(item)
      return item
    }
  }

  /// Calls the hook, if any, for an item just applied; the route calls it before answering.
  func outboxItemApplied(_ item: AppliedOutboxItem) {
    self.appliedHook.withLock { $0 }?(item)
  }

  /// Calls `hook` for every outbox item applied from now on, right after it is applied and
  /// before the server answers its request: the crash test kills its child there.
  func onOutboxItemApplied(_ hook: @escaping @Sendable (AppliedOutboxItem) -> Void) {
    self.appliedHook.withLock { $0 = hook }
  }

  /// The outbox items applied, in order.
  var appliedOutboxItems: [AppliedOutboxItem] {
    self.outboxItems.withLock { $0 }
  }

  // MARK: - Debug

  /// Lets `GET /debug/operations` report a client: the demo registers its own once it creates
  /// it. Until then (and always with `--serve-only`) the endpoint answers 404.
  ///
  /// - Parameter provider: The client's snapshot, or `nil` when there is none to report.
  func inspectClient(with provider: @escaping @Sendable () -> OperationClientSnapshot?) {
    self.snapshotProvider.withLock { $0 = provider }
  }

  /// The registered client's snapshot; `nil` when no client is registered.
  func clientSnapshot() -> OperationClientSnapshot? {
    self.snapshotProvider.withLock { $0 }?()
  }

  /// Lets `GET /debug/metrics` serve a client's metrics: the demo registers its registry's text
  /// once it creates its client. Until then (and always with `--serve-only`) the endpoint
  /// answers 404.
  ///
  /// - Parameter provider: The metrics in Prometheus' text format.
  func serveMetrics(with provider: @escaping @Sendable () -> String) {
    self.metricsProvider.withLock { $0 = provider }
  }

  /// The registered client's metrics in Prometheus' text format; `nil` when none are registered.
  func clientMetrics() -> String? {
    self.metricsProvider.withLock { $0 }?()
  }

  /// Counts a debug request, which skips the fault injection, the request counts and the
  /// history.
  func recordDebugRequest() {
    self.debugRequests.withLock { $0 += 1 }
  }

  /// The number of debug requests received (`/debug/*`), which ``totalRequests``,
  /// ``requestHistory`` and the other counts leave out.
  var debugRequestCount: Int {
    self.debugRequests.withLock { $0 }
  }

  /// The number of answers of one kind, over every key.
  func count(of answer: Answer) -> Int {
    self.log.withLock { $0.count { $0.answer == answer } }
  }
}

/// An item that `POST /outbox/lanes/{lane}` applied.
struct AppliedOutboxItem: Hashable, Sendable, Codable {
  /// The item's idempotency key.
  let key: String
  /// The lane's path, such as `/outbox/lanes/2`.
  let path: String
  /// The item's position in the order of application, from 1.
  let sequence: Int
}
