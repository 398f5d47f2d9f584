import Foundation
import Operation
import OperationDemoSupport
import Prometheus

/// The client's metrics: the library's `OperationMetrics` (the `SwiftOperationMetrics` trait)
/// recording into a Prometheus registry of the demo's own, which the server serves at
/// `GET /debug/metrics` and the demo prints at the end.
///
/// NB: The factory is passed to the instrument rather than bootstrapped as the process's global
/// `MetricsSystem`: the demo has no other metrics, and a registry of its own keeps its counts to
/// its client.
struct DemoMetrics: Sendable {
  /// The registry the metrics are kept in.
  let registry = PrometheusCollectorRegistry()

  /// The instrument, for the client's default context (`context.operationMetrics`).
  let instrument: OperationMetrics

  init() {
    self.instrument = OperationMetrics(factory: PrometheusMetricsFactory(registry: self.registry))
  }

  /// The registry's text, in Prometheus' text format.
  func text() -> String {
    self.registry.emitToString()
  }

  /// How each of the demo's operations sends requests, by the `operation` dimension that the
  /// metrics group it under (its type's name, without the module).
  ///
  /// Each formula follows from how the operation is built (see `Client/`), with the client's
  /// default store creator around it, which adds `retry(limit: 3)` to every operation and
  /// `deduplicated()` to those that are not mutations:
  static let traffic: [OperationTraffic] = [
    // `Query(id:).handleEvents(…).retry(limit: 3).deduplicated()`: `fetch(…)` sends one
    // `GET /posts/{id}` per attempt. A run that joins a run in flight (either `deduplicated()`)
    // sends none, and every retry of the innermost `retry` (the only one that acts) sends one
    // more.
    OperationTraffic(
      operation: Self.group(of: Post.Query.self),
      route: RequestRoute.post,
      formula: .onePerAttempt
    ),
    // A paginated request: each page fetch sends one `GET /posts?limit=&skip=`. The store
    // creator's retry wraps the whole run, so a retry fetches its page again, which the metrics
    // count as one more page: the pages are the requests, retries included.
    OperationTraffic(
      operation: Self.group(of: Post.FeedQuery.self),
      route: RequestRoute.feedPages,
      formula: .onePerPage
    ),
    // The three create-post mutations (plain, invalidating, optimistic) share the type: one
    // `POST /posts/add` without an idempotency key per attempt. Mutations are never
    // deduplicated, so their joins stay 0.
    OperationTraffic(
      operation: Self.group(of: Post.CreateMutation.self),
      route: RequestRoute.createPost,
      formula: .onePerAttempt
    ),
    // `.durable(in: outbox, kind:)`: a run writes its entry to the outbox and waits; the outbox
    // sends it, calling the mutation itself rather than through the store's run, so the metrics
    // see the wait but not the requests (left out below, by their route).
    OperationTraffic(
      operation: Self.group(of: Post.DurableCreateMutation.self),
      route: nil,
      formula: .none("the outbox sends its requests")
    ),
    // `Query(id:).handleEvents(…).circuitBreaker(breaker).retry(limit: 2)`: each attempt that the
    // breaker lets through sends one `GET /users/{id}`; an attempt that an open breaker fails at
    // once (a run's first attempt or a retry) sends none, and the metrics count it as a rejection.
    OperationTraffic(
      operation: Self.group(of: User.Query.self),
      route: RequestRoute.user,
      formula: .onePerAdmittedAttempt
    ),
    // A card's run waits for its lookup in the batch loader, whose resolver sends one
    // `GET /users?ids=` for every batch, in a task of its own: the metrics see the runs but not
    // the requests (left out below, by their route).
    OperationTraffic(
      operation: Self.group(of: User.CardQuery.self),
      route: nil,
      formula: .none("the batch loader sends its requests")
    ),
  ]

  /// The routes of the requests that the demo sends outside the client's stores, which no
  /// operation's metrics count, with the number of them the demo counted sending.
  ///
  /// Two routes are left out. `POST /posts/add` with an `Idempotency-Key`: the outbox's
  /// deliveries (it runs `DurableCreateMutation.mutate` itself, with no store run, retry or page
  /// around it that an instrument observes; its redeliveries after a failure are its own, not
  /// `retry(limit:)`'s) and the outbox step's resend of the first post with its key (a plain
  /// `PostsAPI` call). `GET /users?ids=`: the batch step's loader, whose resolver runs in a task of
  /// the loader's own, once per batch of many stores' lookups. The demo's other requests outside its stores never reach the request counts: `--inspect`'s and
  /// the metrics' own fetches go to `/debug/*`, which the server leaves out. The crash test's
  /// `GET /health` probes and `POST /outbox/lanes/{lane}` items are not sent by the demo, so they
  /// are not left out: one would fail the check.
  ///
  /// - Parameter sentOutsideStores: The demo's count of the requests it sent on a route outside
  ///   its stores.
  /// - Returns: The routes.
  static func excludedRoutes(sentOutsideStores: (String) -> Int) -> [ExcludedRoute] {
    [
      ExcludedRoute(
        route: RequestRoute.createPostIdempotently,
        reason: "the outbox's deliveries and the demo's resend of one",
        expectedRequests: sentOutsideStores(RequestRoute.createPostIdempotently)
      ),
      ExcludedRoute(
        route: RequestRoute.users,
        reason: "the batch loader's requests, one per batch",
        expectedRequests: sentOutsideStores(RequestRoute.users)
      ),
    ]
  }

  /// The `operation` dimension of an operation type: its name without the module, such as
  /// `Post.FeedQuery`, as `OperationMetrics.Grouping.operationType` spells it.
  static func group(of type: Any.Type) -> String {
    let name = String(reflecting: type)
    guard let dot = name.firstIndex(of: ".") else { return name }
    return String(name[name.index(after: dot)...])
  }
}
