import Foundation
import Operation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// The README's mutation example, as written in the seed README, without the SwiftUI view that
// uses it through SharingOperation; the tests below drive the mutation the way that view does.
// `Post` is the README's type, declared in ReadmeExampleTests.swift.

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
      let url = URL(string: "https://dummyjson.com/posts/add")!
      var request = URLRequest(url: url)
      request.httpMethod = "POST"
      request.httpBody = try JSONEncoder().encode(arguments)
      request.addValue("application/json", forHTTPHeaderField: "Content-Type")
      let (data, _) = try await URLSession.shared.data(for: request)
      return try JSONDecoder().decode(Post.self, from: data)
    }
  }
}

@Suite struct `README mutation example tests` {
  @Test func `The Create Mutation Posts Its Arguments And Decodes The New Post`() async throws {
    prepareSharedSessionForDummyJSONStub()

    let client = OperationClient()
    let store = client.store(for: Post.createMutation)
    #expect(!store.isLoading)

    let args = Post.CreateMutation.Arguments(userId: 5, title: "Hello", body: "World")
    let post = try await store.mutate(with: args)
    #expect(post == Post(id: 252, userId: 5, title: "Hello", body: "World"))
    #expect(store.currentValue == post)
    #expect(!store.isLoading)
    #expect(store.error == nil)
    #expect(store.history.map(\.arguments.title) == ["Hello"])
    #expect(client.store(for: Post.createMutation) === store)
  }

  @Test func `Retrying The Create Mutation Posts The Same Arguments Again`() async throws {
    prepareSharedSessionForDummyJSONStub()

    let store = OperationStore.detached(mutation: Post.createMutation)
    let args = Post.CreateMutation.Arguments(userId: 7, title: "Again", body: "Twice")
    try await store.mutate(with: args)
    let retried = try await store.retryLatest()
    #expect(retried == Post(id: 252, userId: 7, title: "Again", body: "Twice"))
    #expect(store.history.map(\.arguments.userId) == [7, 7])
  }
}
