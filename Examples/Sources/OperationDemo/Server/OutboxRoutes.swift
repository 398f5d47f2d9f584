import Foundation
import HTTPTypes
import Hummingbird
import OperationDemoSupport

/// The routes of the outbox crash test (`operation-demo outbox-crash-test`):
///
/// - `GET /health` answers 200 `{"status": "ok"}`, or 503 while the server is offline (the fault
///   injection answers before any route), so a client can tell when the server is back;
/// - `POST /outbox/lanes/{lane}` with `{lane, index}` and an `Idempotency-Key` header applies the
///   item once per key: it records it in ``ServerState/appliedOutboxItems``, and answers 201
///   `{key, path, sequence}`; a repeated key gets the first answer, marked
///   `Idempotent-Replayed: true`. Without the header it answers 400.
enum OutboxRoutes {
  /// The body of `POST /outbox/lanes/{lane}`.
  struct Item: Codable, Hashable, Sendable {
    let lane: Int
    let index: Int
  }

  static func add(to router: Router<BasicRequestContext>, state: ServerState) {
    router.get("health") { _, _ -> Response in
      try .json(["status": "ok"])
    }
    router.post("outbox/lanes/:lane") { request, _ -> Response in
      guard let key = request.headers[.idempotencyKey] else {
        return .json(status: .badRequest, message: "An Idempotency-Key header is required.")
      }
      var request = request
      let body = try await request.collectBody(upTo: 1 << 16)
      guard
        let item = try? JSONDecoder().decode(Item.self, from: Data(body.readableBytesView))
      else {
        return .json(status: .badRequest, message: "Expected {\"lane\": n, \"index\": n}.")
      }
      let path = request.uri.path
      var applied: AppliedOutboxItem?
      let outcome = try state.applyOnce(key: key, path: path, body: try .canonicalJSON(item)) {
        let item = state.recordOutboxItem(key: key, path: path)
        applied = item
        return Array(try JSONEncoder().encode(item))
      }
      // NB: After the item is applied and before the answer leaves: the crash test's kill lands
      // here, so the client dies with the item applied and unacknowledged.
      if let applied {
        state.outboxItemApplied(applied)
      }
      return .idempotent(outcome, key: key)
    }
  }
}
