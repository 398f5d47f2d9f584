import Hummingbird
import OperationDemoSupport

/// The users API, for the resilience steps:
///
/// - `GET /users/{id}` answers the user, or 404 `{message}`, as dummyjson.com does;
/// - `GET /users?ids=1,2,3` answers `{users, total, skip, limit}` with the users it has among the
///   ids, in the order asked, each once (dummyjson.com has no such parameter), or 400 `{message}`
///   for a bad list. The server records the ids of each such request
///   (``ServerState/userBatches``).
///
/// `--failure-rate` leaves both alone (``RequestRoute/exemptFromInjectedFailures``): the
/// circuit-breaker step fails `GET /users/{id}` itself, and the resilience steps count every
/// request.
enum UsersRoutes {
  static func add(to router: Router<BasicRequestContext>, state: ServerState) {
    router.get("users") { request, _ -> Response in
      let raw = request.uri.queryParameters["ids"].map(String.init)
      let ids: [Int]
      do throws(UserIDListError) {
        ids = try UserIDList.parse(raw)
      } catch {
        return .json(status: .badRequest, message: error.description)
      }
      state.recordUserBatch(ids)
      return try .json(CatalogUserList(users: state.users.users(ids: ids)))
    }
    router.get("users/:id") { _, context -> Response in
      let raw = context.parameters.get("id") ?? ""
      guard let id = Int(raw) else {
        return .json(status: .badRequest, message: "Invalid user id '\(raw)'")
      }
      guard let user = state.users.user(id: id) else {
        return .json(status: .notFound, message: "User with id '\(id)' not found")
      }
      return try .json(user)
    }
  }
}
