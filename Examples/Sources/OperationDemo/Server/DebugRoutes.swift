import Foundation
import Hummingbird
import OperationDemoSupport

/// The debug routes, which the fault injection lets through and the request counts leave out:
///
/// - `GET /debug/operations` answers the demo client's `client.snapshot()` as JSON (ISO 8601
///   dates with milliseconds, sorted keys, pretty printed), or 404 `{message}` when no client is
///   registered (``ServerState/inspectClient(with:)``): with `--serve-only`, or before the demo
///   creates its client.
enum DebugRoutes {
  static func add(to router: Router<BasicRequestContext>, state: ServerState) {
    router.get("debug/operations") { _, _ -> Response in
      guard let snapshot = state.clientSnapshot() else {
        return .json(
          status: .notFound,
          message: "No client is registered with this server, so there is no snapshot to show: "
            + "/debug/operations reports the client of the demo that embeds the server, and a "
            + "server started with --serve-only has none."
        )
      }
      let data = try InspectorJSON.encoder().encode(snapshot)
      return Response(
        status: .ok,
        headers: [.contentType: "application/json"],
        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
      )
    }
  }
}
