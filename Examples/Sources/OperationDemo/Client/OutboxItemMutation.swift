import Foundation
import Operation
import OperationDemoSupport
import OperationPersistence

/// Sends an item of the outbox crash test with `POST /outbox/lanes/{lane}` and the delivery's
/// idempotency key; the crash test's child registers it with its outbox.
///
/// NB: As ``Post/DurableCreateMutation``, it holds its API: the outbox delivers with a context
/// of its own.
struct OutboxItemMutation: MutationRequest, Sendable {
  /// The outbox kind the child registers the mutation under.
  static let kind = "outbox-item"

  let api: PostsAPI

  var path: OperationPath { ["outbox-item"] }

  func mutate(
    isolation: isolated (any Actor)?,
    with item: OutboxCrashPlan.Mutation,
    in context: OperationContext,
    with continuation: OperationContinuation<AppliedOutboxItem, any Error>
  ) async throws -> AppliedOutboxItem {
    guard let key = context.idempotencyKey else { throw MissingIdempotencyKey() }
    return try await self.api.addOutboxItem(item, idempotencyKey: key)
  }

  /// The mutation ran outside an outbox delivery, with no key to send.
  struct MissingIdempotencyKey: Error, CustomStringConvertible {
    var description: String { "no idempotency key: the mutation runs only in outbox deliveries" }
  }
}
