import Foundation
import OperationDemoSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension PostsAPI {
  /// `POST /outbox/lanes/{lane}` with an item of the outbox crash test and its idempotency key.
  ///
  /// - Parameters:
  ///   - item: The item.
  ///   - idempotencyKey: Sent as the `Idempotency-Key` header.
  /// - Returns: The item as the server applied it (the first time, for a repeated key).
  func addOutboxItem(
    _ item: OutboxCrashPlan.Mutation,
    idempotencyKey: String
  ) async throws -> AppliedOutboxItem {
    var request = URLRequest(url: self.url("outbox/lanes/\(item.lane)"))
    request.httpMethod = "POST"
    request.httpBody = try JSONEncoder().encode(item)
    request.addValue("application/json", forHTTPHeaderField: "Content-Type")
    request.addValue(idempotencyKey, forHTTPHeaderField: "Idempotency-Key")
    let (data, status) = try await self.send(request)
    guard status != 404 else { throw PostsAPIError.status(404) }
    return try JSONDecoder().decode(AppliedOutboxItem.self, from: data)
  }

  /// `GET /health`: whether the server can be reached and is online.
  ///
  /// - Returns: `false` when the server answers 503 (offline) or cannot be reached; `true` when
  ///   it answers anything else, an injected failure included: it is there.
  func isReachable() async -> Bool {
    do {
      _ = try await self.send(URLRequest(url: self.url("health")))
      return true
    } catch PostsAPIError.status {
      return true
    } catch {
      return false
    }
  }
}
