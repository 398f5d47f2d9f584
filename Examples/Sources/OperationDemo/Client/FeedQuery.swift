import Foundation
import Operation

extension Post {
  struct FeedPage: Codable, Hashable, Sendable {
    var posts: [Post]
    let total: Int
    let skip: Int
    let limit: Int
  }
}

extension Post {
  // The client's default store creator adds `retry(limit: 3)` and deduplication around it, so the
  // handler inside them sees every attempt at every page.
  static let feedQuery = FeedQuery().handleEvents(with: .reportingAttempts(label: "feed"))

  struct FeedQuery: PaginatedRequest, Hashable, Sendable {
    static let limit = 10

    let initialPageId = 0

    func pageId(
      after page: Page<Int, FeedPage>,
      using paging: Paging<Int, FeedPage>,
      in context: OperationContext
    ) -> Int? {
      // Nil means there are no more pages. (The seed README compares `skip` alone with `total`,
      // which asks for one empty page past the end.)
      let loaded = page.value.skip + page.value.posts.count
      return loaded < page.value.total && !page.value.posts.isEmpty ? page.id + 1 : nil
    }

    func fetchPage(
      isolation: isolated (any Actor)?,
      using paging: Paging<Int, FeedPage>,
      in context: OperationContext,
      with continuation: OperationContinuation<FeedPage, any Error>
    ) async throws -> FeedPage {
      try await context.postsAPI.feedPage(limit: Self.limit, skip: paging.pageId * Self.limit)
    }
  }
}
