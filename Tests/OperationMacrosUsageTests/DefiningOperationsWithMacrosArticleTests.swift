import Operation
import OperationSynchronization
import Testing

// The examples of the Defining operations with macros article
// (Sources/Operation/Documentation.docc/Articles/DefiningOperationsWithMacros.md), as written
// there; the tests check what its comments claim.

private struct Post: Hashable, Sendable {
  let id: Int
  let title: String
}

@QueryRequest
private func post(id: Int) async throws -> Post {
  // A real query would load the post here.
  Post(id: id, title: "Post \(id)")
}

@QueryRequest(path: .custom { (userID: Int) in ["user-posts", userID] })
private func userPosts(userID: Int) async throws -> [Post] {
  [Post(id: 1, title: "By \(userID)")]
}

@QueryRequest
private func cachedPost(
  id: Int,
  continuation: OperationContinuation<Post, any Error>
) async throws -> Post {
  continuation.yield(Post(id: id, title: "Cached"))
  return Post(id: id, title: "Fresh")
}

@MutationRequest
private func rename(postID: Int, arguments title: String) async throws -> Post {
  Post(id: postID, title: title)
}

@OperationRequest
private func sendReceipt(to address: String) async throws -> Bool {
  !address.isEmpty
}

extension OperationContext {
  @ContextEntry fileprivate var pageSize = 20
  @ContextEntry fileprivate var authToken: String?
}

@Suite struct DefiningOperationsWithMacrosArticleTests {
  @Test func `A Query Function Fetches Through Its Accessor And Shares Its Store`() async throws {
    let client = OperationClient()
    let store = client.store(for: $post(id: 1))
    let value = try await store.fetch()
    #expect(value == Post(id: 1, title: "Post 1"))
    #expect(client.store(for: $post(id: 1)) === store)
  }

  @Test func `A Custom Path Is Built From The Arguments`() {
    let postsPath = $userPosts(userID: 7).path
    #expect(postsPath == ["user-posts", 7])
  }

  @Test func `A Continuation Parameter Yields Before The Final Value`() async throws {
    let client = OperationClient()
    let store = client.store(for: $cachedPost(id: 1))
    let titles = Lock<[String]>([])
    let handler = QueryEventHandler<QueryState<Post, any Error>>(
      onResultReceived: { result, _ in
        if case .success(let post) = result { titles.withLock { $0.append(post.title) } }
      }
    )
    try await store.fetch(handler: handler)
    #expect(titles.withLock { $0 } == ["Cached", "Fresh"])
  }

  @Test func `A Mutation Function Mutates With Its Arguments`() async throws {
    let client = OperationClient()
    let renaming = client.store(for: $rename(postID: 1))
    let renamed = try await renaming.mutate(with: "New title")
    #expect(renamed == Post(id: 1, title: "New title"))
  }

  @Test func `Run Runs A Stateless Request Once`() async throws {
    let sent = try await #run($sendReceipt(to: "reader@example.com"))
    #expect(sent)
  }

  @Test func `Context Entries Have Their Defaults And Can Be Set`() {
    var context = OperationContext()
    #expect(context.pageSize == 20)
    #expect(context.authToken == nil)
    context.authToken = "token"
    #expect(context.authToken == "token")
  }
}
