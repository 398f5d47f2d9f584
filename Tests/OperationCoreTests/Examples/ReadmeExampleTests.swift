import Foundation
import Operation
import OperationSynchronization
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// The README's query example, as written in the README. Its `rerunOnChange` line uses the Linux
// network observer, so it is compiled on Linux only.

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
      #if os(Linux)
        // Refetch when the network comes back. On Apple platforms use
        // NWPathMonitorObserver.startingShared(); `.platformDefault` picks for you.
        .rerunOnChange(of: .connected(to: LinuxNetworkObserver.startingShared()))
      #endif
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

@Suite(.serialized) struct `README subscription example tests` {
  @Test func `The Subscription Prints Idle Then Loading Then The Post`() async throws {
    prepareSharedSessionForDummyJSONStub()
    let printed = Lock([String]())

    // The README's subscription example, with `print` recorded.
    let client = OperationClient()
    let store = client.store(for: Post.query(for: 1))

    let subscription = store.subscribe(
      with: QueryEventHandler { state, _ in
        printed.withLock { $0.append("\(state.status)") }
      }
    )

    let post = try await store.fetch()
    subscription.cancel()

    let lines = printed.withLock { $0 }
    // NB: How many `loading` lines there are depends on whether `fetch()` joins the
    // subscription's own fetch before or after it finishes, as the README says.
    #expect(lines.first == "idle")
    #expect(lines.dropFirst().dropLast().count >= 1)
    #expect(lines.dropFirst().dropLast().allSatisfy { $0 == "loading" })
    #expect(
      lines.last
        == "result(Swift.Result<Swift.Optional<OperationCoreTests.Post>, Swift.Error>"
        + ".success(Optional(OperationCoreTests.Post(id: 1, userId: 5, title: \"Hello\", "
        + "body: \"World\"))))"
    )
    #expect(post?.id == 1)
  }
}
