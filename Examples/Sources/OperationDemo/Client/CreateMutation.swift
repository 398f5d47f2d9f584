import Foundation
import Operation

extension Post {
  /// The retries of the create-post mutations: four attempts in all.
  static let createRetryLimit = 3

  // The client's default store creator adds `retry(limit: 3)` around mutations (and, unlike
  // queries, no deduplication and no automatic runs).
  static let createMutation = CreateMutation(label: "create post")
    .handleEvents(with: .reportingAttempts(label: "create post"))

  /// Creates a post, then invalidates the feed: the feed's observed store fetches again, and
  /// `mutate(with:)` returns once it has, showing the new post.
  static let createInvalidatingFeed = CreateMutation(label: "create post · invalidates feed")
    .handleEvents(with: .reportingAttempts(label: "create post · invalidates feed"))
    // NB: The store creator's `retry(limit: 3)` wraps the whole operation, these modifiers
    // included, so without a retry of its own the feed would be invalidated (and fetched again)
    // after every failed attempt. Only the innermost `retry` acts, so this one retries the
    // request alone and the invalidation runs once, when the last attempt has ended.
    .retry(limit: Self.createRetryLimit)
    .invalidates(matching: { _ in Post.feedQuery.path })

  /// Creates a post and shows it at the top of the feed at once, as a draft; a failure rolls the
  /// feed back to exactly what it was.
  static let createOptimistically = CreateMutation(label: "create post · optimistic")
    .handleEvents(with: .reportingAttempts(label: "create post · optimistic"))
    // NB: As above: inside the store creator's retry, the draft would be rolled back after each
    // failed attempt and shown again by the next one; with a retry of its own, the draft stays
    // through every attempt and is rolled back once.
    .retry(limit: Self.createRetryLimit)
    .optimisticUpdate(
      of: FeedQuery.State.self,
      matching: { _ in Post.feedQuery.path },
      Self.showDraft(in:for:)
    )

  /// Shows the draft of a new post on top of the feed's first page.
  ///
  /// The optimistic update runs it again whenever the pages under it change, so it depends on
  /// its arguments only.
  @Sendable static func showDraft(
    in pages: inout Pages<Int, FeedPage>,
    for arguments: CreateMutation.Arguments
  ) {
    guard let first = pages.first else { return }
    pages[id: first.id]?.value.posts.insert(Post(draft: arguments), at: 0)
  }

  /// Creates a post with `POST /posts/add`.
  ///
  /// The label tells the demo's mutations apart: it is part of the request, so each one has a
  /// store of its own in the client.
  struct CreateMutation: MutationRequest, Hashable, Sendable {
    struct Arguments: Codable, Sendable {
      let userId: Int
      let title: String
      let body: String
    }

    let label: String

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

extension Post {
  /// The identifier of a draft, which the server has not numbered yet (its posts start at 1).
  static let draftId = -1

  /// The draft that an optimistic update shows until the server answers.
  init(draft arguments: CreateMutation.Arguments) {
    self.init(
      id: Self.draftId,
      userId: arguments.userId,
      title: arguments.title,
      body: arguments.body
    )
  }
}
