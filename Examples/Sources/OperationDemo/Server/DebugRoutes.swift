import Foundation
import Hummingbird
import OperationDemoSupport

/// The debug routes, which the fault injection lets through and the request counts leave out:
///
/// - `GET /debug/operations` answers the demo client's `client.snapshot()` as JSON (ISO 8601
///   dates with milliseconds, sorted keys, pretty printed), or 404 `{message}` when no client is
///   registered (``ServerState/inspectClient(with:)``): with `--serve-only`, or before the demo
///   creates its client;
/// - `GET /debug/metrics` answers the demo client's metrics (`OperationMetrics` on a
///   `PrometheusCollectorRegistry`) in Prometheus' text format, or 404 `{message}` when no client
///   is registered (``ServerState/serveMetrics(with:)``).
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
    router.get("debug/metrics") { _, _ -> Response in
      guard let text = state.clientMetrics() else {
        return .json(
          status: .notFound,
          message: "No client is registered with this server, so there are no metrics to serve: "
            + "/debug/metrics serves those of the client of the demo that embeds the server, and "
            + "a server started with --serve-only has none."
        )
      }
      return Response(
        status: .ok,
        headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
        body: ResponseBody(byteBuffer: ByteBuffer(string: text))
      )
    }
  }
}
