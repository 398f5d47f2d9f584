import Foundation
import IdentifiedCollections
import Operation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// The README's pagination example, as written in the seed README, without the SwiftUI view: the
// test below drives the store the way the view's "Load More" button does.

extension Post {
  struct FeedPage: Codable, Sendable {
    let posts: [Post]
    let total: Int
    let skip: Int
  }
}

extension Post {
  static let feedQuery = FeedQuery()

  struct FeedQuery: PaginatedRequest, Hashable, Sendable {
    private static let limit = 10

    let initialPageId = 0

    func pageId(
      after page: Page<Int, FeedPage>,
      using paging: Paging<Int, FeedPage>,
      in context: OperationContext
    ) -> Int? {
      // Nil means there's no more pages to fetch.
      page.value.skip < page.value.total ? page.id + 1 : nil
    }

    func fetchPage(
      isolation: isolated (any Actor)?,
      using paging: Paging<Int, FeedPage>,
      in context: OperationContext,
      with continuation: OperationContinuation<FeedPage, any Error>
    ) async throws -> FeedPage {
      var url = URL(string: "https://dummyjson.com/posts")!
      url.append(
        queryItems: [
          URLQueryItem(name: "limit", value: "\(Self.limit)"),
          URLQueryItem(name: "skip", value: "\(paging.pageId * Self.limit)"),
        ]
      )
      let (data, _) = try await URLSession.shared.data(from: url)
      return try JSONDecoder().decode(FeedPage.self, from: data)
    }
  }
}

@Suite(.serialized) struct `README pagination example tests` {
  @Test func `The Feed Query Loads Pages Until There Are No More`() async throws {
    prepareSharedSessionForDummyJSONStub()
    let client = OperationClient()
    let store = client.store(for: Post.feedQuery)

    while store.hasNextPage {
      try await store.fetchNextPage()
    }

    // NB: The stub's feed has 25 posts; the README stops after the page whose skip passes them.
    #expect(store.currentValue.map(\.id) == [0, 1, 2, 3])
    #expect(store.currentValue.map(\.value.posts.count) == [10, 10, 5, 0])
    let ids = store.currentValue.flatMap { $0.value.posts.map(\.id) }
    #expect(ids == Array(1...DummyJSONStub.feedTotal))
    #expect(store.error == nil)
    #expect(client.store(for: Post.feedQuery) === store)
  }

  @Test func `The Feed Query Refetches Every Loaded Page`() async throws {
    prepareSharedSessionForDummyJSONStub()
    let store = OperationStore.detached(query: Post.feedQuery)
    try await store.fetchNextPage()
    try await store.fetchNextPage()

    let pages = try await store.refetchAllPages()

    #expect(pages.map(\.id) == [0, 1])
    #expect(pages.map(\.value.skip) == [0, 10])
    #expect(store.hasNextPage)
  }
}
