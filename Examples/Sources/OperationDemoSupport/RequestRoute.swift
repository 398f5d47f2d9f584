/// The route of a request to the demo's server, such as `GET /posts/{id}`: its method and its
/// path with the identifiers left out and without the query, so that the server counts requests
/// by what sent them rather than by post.
///
/// ```swift
/// RequestRoute.name(method: "GET", path: "/posts/3", hasIdempotencyKey: false)
/// // "GET /posts/{id}"
/// RequestRoute.name(method: "POST", path: "/posts/add", hasIdempotencyKey: true)
/// // "POST /posts/add + Idempotency-Key"
/// ```
public enum RequestRoute {
  /// The route of `GET /posts?limit=&skip=`, the feed's pages.
  public static let feedPages = "GET /posts"
  /// The route of `GET /posts/{id}`, one post.
  public static let post = "GET /posts/{id}"
  /// The route of `POST /posts/add` without an `Idempotency-Key`: the create-post mutations that
  /// the client's stores run.
  public static let createPost = "POST /posts/add"
  /// The route of `POST /posts/add` with an `Idempotency-Key`: the outbox's deliveries and the
  /// demo's resend of one of them.
  public static let createPostIdempotently = "POST /posts/add + Idempotency-Key"
  /// The route of `GET /health`, the crash test's reachability probe.
  public static let health = "GET /health"
  /// The route of `POST /outbox/lanes/{lane}`, the crash test's outbox items.
  public static let outboxLane = "POST /outbox/lanes/{lane}"
  /// The route of `GET /users/{id}`, one user: the circuit-breaker step's query.
  public static let user = "GET /users/{id}"
  /// The route of `GET /users?ids=`, users by id in one request: the batch step's loader.
  public static let users = "GET /users"

  /// The routes that `--failure-rate` leaves alone: the users API, whose failures the
  /// circuit-breaker step switches on and off itself and whose every request the resilience
  /// steps count, so that a seeded failure cannot open a breaker or split a batch.
  public static let exemptFromInjectedFailures: Set<String> = [Self.user, Self.users]

  /// The route of a request.
  ///
  /// Numeric path components become `{id}` (`{lane}` after `lanes`), and a request with an
  /// `Idempotency-Key` header is marked with ` + Idempotency-Key`: on one path, the requests that
  /// carry a key come from the outbox, not from a store's run.
  ///
  /// - Parameters:
  ///   - method: The request's method, such as `GET`.
  ///   - path: The request's path, without its query.
  ///   - hasIdempotencyKey: Whether the request has an `Idempotency-Key` header.
  /// - Returns: The route.
  public static func name(method: String, path: String, hasIdempotencyKey: Bool) -> String {
    var previous: Substring?
    let components = path.split(separator: "/", omittingEmptySubsequences: false).map {
      component -> String in
      defer { previous = component }
      guard !component.isEmpty, component.allSatisfy(\.isASCIIDigit) else {
        return String(component)
      }
      return previous == "lanes" ? "{lane}" : "{id}"
    }
    let route = "\(method) \(components.joined(separator: "/"))"
    return hasIdempotencyKey ? "\(route) + Idempotency-Key" : route
  }
}

extension Character {
  fileprivate var isASCIIDigit: Bool {
    ("0"..."9").contains(self)
  }
}
