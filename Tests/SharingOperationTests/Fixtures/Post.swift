import Foundation
import SharingOperation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// The README's operations, as written in the README except that they load through
// `@Dependency(\.urlSession)` instead of `URLSession.shared`: each test then gives them a session
// that answers from ``DummyJSONStub`` (and that no other test target shares), and the operations
// show how a swift-dependencies value reaches an operation at run time.

struct Post: Hashable, Identifiable, Sendable, Codable {
  let id: Int
  var userId: Int
  var title: String
  var body: String
}

extension Post {
  static func query(for id: Int) -> some QueryRequest<Self?, any Error> {
    // The modifiers on the query are applied by default, they are
    // only being shown to demonstrate how to configure operations.
    Query(id: id)
      .retry(limit: 3)
      .deduplicated()
  }

  struct Query: QueryRequest, Hashable {
    let id: Int

    func fetch(
      isolation: isolated (any Actor)?,
      in context: OperationContext,
      with continuation: OperationContinuation<Post?, any Error>
    ) async throws -> Post? {
      @Dependency(\.urlSession) var session
      let url = URL(string: "https://dummyjson.com/posts/\(id)")!
      let (data, resp) = try await session.data(from: url)
      if (resp as? HTTPURLResponse)?.statusCode == 404 {
        return nil
      }
      return try JSONDecoder().decode(Post.self, from: data)
    }
  }
}

extension Post {
  static let createMutation = CreateMutation()

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
      @Dependency(\.urlSession) var session
      let url = URL(string: "https://dummyjson.com/posts/add")!
      var request = URLRequest(url: url)
      request.httpMethod = "POST"
      request.httpBody = try JSONEncoder().encode(arguments)
      request.addValue("application/json", forHTTPHeaderField: "Content-Type")
      let (data, resp) = try await session.data(for: request)
      // NB: The README decodes any answer; checking the status gives the error case a clear error.
      guard (resp as? HTTPURLResponse)?.statusCode == 200 else {
        throw DummyJSONError(statusCode: (resp as? HTTPURLResponse)?.statusCode ?? 0)
      }
      return try JSONDecoder().decode(Post.self, from: data)
    }
  }
}

/// A non-success answer of the stubbed API.
struct DummyJSONError: Error, Hashable {
  let statusCode: Int
}

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
      @Dependency(\.urlSession) var session
      var url = URL(string: "https://dummyjson.com/posts")!
      url.append(
        queryItems: [
          URLQueryItem(name: "limit", value: "\(Self.limit)"),
          URLQueryItem(name: "skip", value: "\(paging.pageId * Self.limit)"),
        ]
      )
      let (data, _) = try await session.data(from: url)
      return try JSONDecoder().decode(FeedPage.self, from: data)
    }
  }
}
