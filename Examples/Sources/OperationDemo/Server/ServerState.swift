import OperationDemoSupport

/// What the embedded server knows: its posts, its faults, its offline switch and every request it
/// received, so that the client's steps can be checked against what really went over the wire.
final class ServerState: Sendable {
  /// How the server answered one request.
  enum Answer: Hashable, Sendable {
    /// The fault injection failed the request with HTTP 500.
    case injectedFailure
    /// The offline switch was on: HTTP 503.
    case offline
    /// The route answered (200, 201, 400 or 404).
    case handled
  }

  let plan: FaultPlan
  let catalog: PostCatalog
  private let ledger = Locked(RequestLedger())
  private let answers = Locked([String: [Answer]]())
  private let isOfflineSwitch = Locked(false)

  init(plan: FaultPlan, catalog: PostCatalog = PostCatalog()) {
    self.plan = plan
    self.catalog = catalog
  }

  /// Whether the server answers every request with HTTP 503, as if it could not be reached.
  var isOffline: Bool {
    get { self.isOfflineSwitch.withLock { $0 } }
    set { self.isOfflineSwitch.withLock { $0 = newValue } }
  }

  /// Records a request and decides how the server answers it.
  func admit(key: String) -> Answer {
    let occurrence = self.ledger.withLock { $0.record(key) }
    let answer: Answer =
      if self.isOffline {
        .offline
      } else if self.plan.injectsFailure(forRequest: key, occurrence: occurrence) {
        .injectedFailure
      } else {
        .handled
      }
    self.answers.withLock { $0[key, default: []].append(answer) }
    return answer
  }

  /// The number of requests received.
  var totalRequests: Int {
    self.ledger.withLock { $0.total }
  }

  /// The number of requests received with a key, such as `"GET /posts/1"`.
  func requestCount(for key: String) -> Int {
    self.ledger.withLock { $0.count(for: key) }
  }

  /// The answers given to the requests with a key, in order.
  func answers(for key: String) -> [Answer] {
    self.answers.withLock { $0[key, default: []] }
  }

  /// The number of requests received whose key satisfies a predicate.
  func requestCount(where isIncluded: (String) -> Bool) -> Int {
    self.answers.withLock { answers in
      answers.reduce(0) { $0 + (isIncluded($1.key) ? $1.value.count : 0) }
    }
  }

  /// The answers given to the requests whose key satisfies a predicate, ordered by key and then
  /// by time (the demo's operations request one key at a time).
  func answers(where isIncluded: (String) -> Bool) -> [Answer] {
    self.answers.withLock { answers in
      answers.keys.sorted().filter(isIncluded).flatMap { answers[$0] ?? [] }
    }
  }

  /// The number of answers of one kind, over every key.
  func count(of answer: Answer) -> Int {
    self.answers.withLock { $0.values.reduce(0) { $0 + $1.count { $0 == answer } } }
  }
}
