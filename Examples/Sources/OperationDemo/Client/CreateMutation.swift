import Foundation
import Operation

extension Post {
  // The client's default store creator adds `retry(limit: 3)` around mutations (and, unlike
  // queries, no deduplication and no automatic runs).
  static let createMutation = CreateMutation()
    .handleEvents(with: .reportingAttempts(label: "create post"))

  struct CreateMutation: MutationRequest, Hashable, Sendable {
    struct Arguments: Codable, Sendable {
      let userId: Int
      let title: String
      let body: String
    }

    func mutate(
      isolation: isolated (any Actor)?,
      with arguments: Arguments,
      in context: OperationContext,
      with continuation: OperationContinuation<Post, any Error>
    ) async throws -> Post {
      try await context.postsAPI.addPost(arguments)
    }
  }
}
