import Foundation
import Operation
import OperationTestSupport
import Testing

/// The examples of the article "Invalidation, collection, selection and optimistic updates", each
/// against a posts API of its own.
@Suite(.timeLimit(.minutes(1))) struct `Cache lifecycle article tests` {
  private typealias Post = Article.Post
  private typealias FeedQuery = Article.FeedQuery
  private typealias CreatePost = Article.CreatePost
  private typealias SearchQuery = Article.SearchQuery
  private typealias PostsAPI = Article.PostsAPI
  @Test func `Invalidating The Feed Refetches It Before Invalidate Returns`() async throws {
    let api = PostsAPI()
    let client = OperationClient()
    let feed = client.store(for: FeedQuery(api: api))
    let rendered = ValueRecorder<[Post]?>()
    let subscription = feed.subscribe { state in rendered.record(state.currentValue) }
    try await feed.activeTasks.first?.runIfNeeded()

    await api.add(Post(id: 2, title: "Second"))
    let result = await client.invalidate(matching: ["feed"])
    #expect(result.rerun == [["feed"]])
    #expect(feed.currentValue?.map(\.id) == [2, 1])
    #expect(await api.feedRequests == 2)
    subscription.cancel()
  }

  @Test func `A Search Store Is Collected Ten Seconds After Nobody Observes It`() async {
    let clock = ManualOperationClock()
    let delayer = ManualDelayer()
    var context = OperationContext()
    context.collectionDelay = .seconds(60)
    context.operationClock = clock
    context.collectionDelayer = delayer
    let client = OperationClient(defaultContext: context)
    let removed = Gate()
    let changes = client.subscribe { if !$0.storesRemoved.isEmpty { removed.open() } }

    let search = client.store(
      for: SearchQuery(term: "swift").collected(after: .seconds(10))
    )
    await delayer.waitForDelays(count: 1)
    clock.advance(by: 10)
    delayer.resumeNext()
    await removed.wait()
    #expect(search.isCollected)
    #expect(delayer.delays == [.seconds(10)])
    changes.cancel()
  }

  @Test func `Selected Titles Are Delivered Only When A Title Changes`() async throws {
    let api = PostsAPI()
    let client = OperationClient()
    let store = client.store(for: FeedQuery(api: api))
    let titles = store.select { $0.currentValue?.map(\.title) ?? [] }
    let delivered = ValueRecorder<[String]>()
    let subscription = titles.subscribe { delivered.record($0) }
    try await store.activeTasks.first?.runIfNeeded()

    // NB: A refetch that returns the same posts changes the state twice and the titles never.
    try await store.fetch()
    #expect(delivered.values == [[], ["First"]])

    await api.rename(1, to: "Renamed")
    try await store.fetch()
    #expect(delivered.values == [[], ["First"], ["Renamed"]])
    subscription.cancel()
  }

  @Test func `The Optimistic Post Shows At Once And The Feed Refetches After`() async throws {
    let api = PostsAPI()
    let client = OperationClient()
    let feed = client.store(for: FeedQuery(api: api))
    let subscription = feed.subscribe { _ in }
    try await feed.activeTasks.first?.runIfNeeded()

    let createPost = CreatePost(api: api)
      .optimisticUpdate(of: FeedQuery.State.self, matching: { _ in ["feed"] }) { feed, title in
        feed?.insert(Post(id: -1, title: title), at: 0)
      }
      .invalidates(matching: { _ in ["feed"] })
    await api.holdCreates()
    let store = client.store(for: createPost)
    let mutation = Task { try await store.mutate(with: "Hello") }
    await api.waitForCreate()
    #expect(feed.currentValue?.map(\.id) == [-1, 1])

    await api.releaseCreates(failing: false)
    #expect(try await mutation.value.title == "Hello")
    #expect(feed.currentValue?.map(\.id) == [2, 1])
    subscription.cancel()
  }

  @Test func `A Failed Creation Leaves The Feed Exactly As It Was`() async throws {
    let api = PostsAPI()
    let client = OperationClient()
    let feed = client.store(for: FeedQuery(api: api))
    let subscription = feed.subscribe { _ in }
    try await feed.activeTasks.first?.runIfNeeded()
    let before = feed.currentValue

    let createPost = CreatePost(api: api)
      .optimisticUpdate(of: FeedQuery.State.self, matching: { _ in ["feed"] }) { feed, title in
        feed?.insert(Post(id: -1, title: title), at: 0)
      }
    await api.holdCreates()
    let mutation = Task { try await client.store(for: createPost).mutate(with: "Hello") }
    await api.waitForCreate()
    #expect(feed.currentValue?.count == 2)
    await api.releaseCreates(failing: true)
    await #expect(throws: PostsAPI.Failure.self) { try await mutation.value }
    #expect(feed.currentValue == before)
    subscription.cancel()
  }
}

// MARK: - The article's definitions

/// The article's definitions, in a namespace so that their names match the article's.
private enum Article {

  struct Post: Hashable, Sendable {
    let id: Int
    var title: String
  }

  struct FeedQuery: QueryRequest {
    let api: PostsAPI

    var path: OperationPath { ["feed"] }

    func fetch(
      isolation: isolated (any Actor)?,
      in context: OperationContext,
      with continuation: OperationContinuation<[Post], any Error>
    ) async throws -> [Post] {
      await self.api.feed()
    }
  }

  struct CreatePost: MutationRequest {
    let api: PostsAPI

    var path: OperationPath { ["create-post"] }

    func mutate(
      isolation: isolated (any Actor)?,
      with title: String,
      in context: OperationContext,
      with continuation: OperationContinuation<Post, any Error>
    ) async throws -> Post {
      try await self.api.create(title: title)
    }
  }

  struct SearchQuery: QueryRequest, Hashable {
    let term: String

    func fetch(
      isolation: isolated (any Actor)?,
      in context: OperationContext,
      with continuation: OperationContinuation<[Post], any Error>
    ) async throws -> [Post] {
      []
    }
  }

  /// A posts server in memory; creations can be held until the test releases them.
  actor PostsAPI {
    struct Failure: Error {}

    private var posts = [Post(id: 1, title: "First")]
    private(set) var feedRequests = 0
    private var createGate: Gate?
    private let createStarted = Gate()
    private var failsCreates = false

    func feed() -> [Post] {
      self.feedRequests += 1
      return self.posts
    }

    func add(_ post: Post) {
      self.posts.insert(post, at: 0)
    }

    func rename(_ id: Int, to title: String) {
      if let index = self.posts.firstIndex(where: { $0.id == id }) {
        self.posts[index].title = title
      }
    }

    func holdCreates() {
      self.createGate = Gate()
    }

    func waitForCreate() async {
      await self.createStarted.wait()
    }

    func releaseCreates(failing: Bool) {
      self.failsCreates = failing
      self.createGate?.open()
    }

    func create(title: String) async throws -> Post {
      self.createStarted.open()
      await self.createGate?.wait()
      if self.failsCreates { throw Failure() }
      let post = Post(id: (self.posts.map(\.id).max() ?? 0) + 1, title: title)
      self.posts.insert(post, at: 0)
      return post
    }
  }

}
