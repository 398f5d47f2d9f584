import Foundation
import Operation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// The README's query example, as written in the seed README, apart from the `rerunOnChange` line
// that a later issue covers.

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
      let url = URL(string: "https://dummyjson.com/posts/\(id)")!
      let (data, resp) = try await URLSession.shared.data(from: url)
      if (resp as? HTTPURLResponse)?.statusCode == 404 {
        return nil
      }
      return try JSONDecoder().decode(Post.self, from: data)
    }
  }
}

@Suite(.serialized) struct `README example tests` {
  @Test func `The Post Query Fetches And Decodes A Post`() async throws {
    prepareSharedSessionForDummyJSONStub()

    let client = OperationClient()
    let store = client.store(for: Post.query(for: 1))
    let post = try await store.fetch()
    #expect(post == Post(id: 1, userId: 5, title: "Hello", body: "World"))
    #expect(store.currentValue == post)
    #expect(client.store(for: Post.query(for: 1)) === store)
  }

  @Test func `The Post Query Returns Nil For A Missing Post`() async throws {
    prepareSharedSessionForDummyJSONStub()

    let store = OperationStore.detached(query: Post.query(for: 404), initialValue: nil)
    #expect(try await store.fetch() == nil)
    #expect(store.status.isSuccessful)
  }
}
