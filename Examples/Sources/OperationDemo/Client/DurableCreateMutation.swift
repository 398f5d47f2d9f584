import Foundation
import Operation
import OperationPersistence

extension Post {
  /// Creates a post with `POST /posts/add` and the delivery's idempotency key, for the outbox:
  /// `DurableCreateMutation(api:).durable(in: outbox, kind: "create-post")`.
  ///
  /// NB: The outbox delivers with a context of its own, not the client's: a delivery after a
  /// restart has no store to take one from. So the mutation holds its API instead of reading
  /// `context.postsAPI`, which would be the default (dummyjson.com) there.
  struct DurableCreateMutation: MutationRequest, Sendable {
    let api: PostsAPI

    var path: OperationPath { ["posts", "add", "durable"] }

    func mutate(
      isolation: isolated (any Actor)?,
      with arguments: CreateMutation.Arguments,
      in context: OperationContext,
      with continuation: OperationContinuation<Post, any Error>
    ) async throws -> Post {
      try await self.api.addPost(arguments, idempotencyKey: context.idempotencyKey)
    }
  }
}
