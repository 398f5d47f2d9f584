import Hummingbird
import OperationDemoSupport

/// Applies the server's faults before a route runs: a step's hold on a request, the added latency,
/// the offline switch (HTTP 503), the failures a step asked for and the seeded failures
/// (HTTP 500; not on the users API, ``RequestRoute/exemptFromInjectedFailures``).
///
/// A failed request never reaches its route, so a retried `POST /posts/add` cannot create a post
/// twice.
///
/// Debug requests (`/debug/*`, such as `--inspect`'s `GET /debug/operations`) go straight to their
/// route: they are never held, delayed or failed, and they are counted apart
/// (``ServerState/debugRequestCount``), not in the request counts and history that the demo's
/// checks compare with the client's requests.
struct FaultInjectionMiddleware<Context: RequestContext>: RouterMiddleware {
  let state: ServerState

  // NB: Hummingbird's requirement is compiled without `NonisolatedNonsendingByDefault`, so its
  // `next` closure is `@concurrent`; the witness spells that out to match.
  @concurrent func handle(
    _ request: Request,
    context: Context,
    next: @concurrent (Request, Context) async throws -> Response
  ) async throws -> Response {
    if DebugEndpoint.isDebug(path: request.uri.path) {
      self.state.recordDebugRequest()
      return try await next(request, context)
    }
    let key = Self.key(for: request)
    let answer = self.state.admit(key: key, route: Self.route(of: request))
    await self.state.waitIfHeld(key: key)
    if self.state.plan.latency > .zero {
      try await Task.sleep(for: self.state.plan.latency)
    }
    switch answer {
    case .offline:
      return .json(
        status: .serviceUnavailable,
        message: "The server is offline (--offline-for-ms)."
      )
    case .injectedFailure:
      return .json(status: .internalServerError, message: "Injected failure (--failure-rate).")
    case .requestedFailure:
      return .json(status: .internalServerError, message: "Failure requested by the demo's step.")
    case .handled:
      return try await next(request, context)
    }
  }

  /// The key the server counts requests by, and that seeds its fault decisions: the method, the
  /// path and the query, such as `GET /posts?limit=10&skip=0`.
  static func key(for request: Request) -> String {
    let query = request.uri.query.map { "?\($0)" } ?? ""
    return "\(request.method) \(request.uri.path)\(query)"
  }

  /// The route the server counts requests by for the metrics check, such as `GET /posts/{id}`
  /// (``RequestRoute``).
  static func route(of request: Request) -> String {
    RequestRoute.name(
      method: "\(request.method)",
      path: request.uri.path,
      hasIdempotencyKey: request.headers[.idempotencyKey] != nil
    )
  }
}
