import Foundation
import SharingOperation

// The README's SwiftUI views, rewritten as `@Observable` models: each view's body becomes
// computed properties that say what the view would show, and each button becomes a method.

/// `PostView`: shows a post, "Post Not Found", an error, or a progress view.
@MainActor
@Observable
final class PostModel {
  /// What the view shows.
  enum Content: Equatable {
    case empty
    case loading
    case post(Post)
    case notFound
    case error(String)
  }

  @ObservationIgnored
  @SharedOperation<Post.Query.State> var post: Post??

  init(id: Int) {
    // By default, this will begin fetching the post.
    self._post = SharedOperation(Post.query(for: id))
  }

  var content: Content {
    switch self.$post.status {
    case .result(.success(let post)):
      if let post {
        .post(post)
      } else {
        .notFound
      }
    case .result(.failure(let error)):
      .error("Error: \(error.localizedDescription).")
    case .loading:
      .loading
    default:
      .empty
    }
  }

  func reloadButtonTapped() async throws {
    try await self.$post.fetch()
  }
}

/// `CreatePostView`: a form that creates a post and dismisses itself.
@MainActor
@Observable
final class CreatePostModel {
  let userId: Int
  var title = ""
  var postBody = ""
  private(set) var isDismissed = false

  @ObservationIgnored
  @SharedOperation(Post.createMutation) private var create

  init(userId: Int) {
    self.userId = userId
  }

  var createButtonTitle: String {
    self.$create.isLoading ? "Creating..." : "Create"
  }

  var isCreateButtonDisabled: Bool {
    self.$create.isLoading
  }

  var errorMessage: String? {
    self.$create.error.map { "Error: \($0.localizedDescription)" }
  }

  var createdPost: Post? {
    self.create
  }

  /// How many times the form created a post, successfully or not.
  var attemptCount: Int {
    self.$create.history.count
  }

  func createButtonTapped() async throws {
    let args = Post.CreateMutation.Arguments(
      userId: self.userId,
      title: self.title,
      body: self.postBody
    )
    try await self.$create.mutate(with: args)
    self.isDismissed = true
  }
}

/// `ParentView` of the sharing example: it and its child observe the same post.
@MainActor
@Observable
final class ParentModel {
  @ObservationIgnored
  @SharedOperation(Post.query(for: 10)) var post

  let child = ChildModel()
}

/// `ChildView` of the sharing example.
@MainActor
@Observable
final class ChildModel {
  @ObservationIgnored
  @SharedOperation(Post.query(for: 10)) var post
}

/// `PostsFeedView`: an endless list of posts with a "Load More" button.
@MainActor
@Observable
final class PostsFeedModel {
  @ObservationIgnored
  @SharedOperation(Post.feedQuery) private var feed

  /// The posts of every page, in order, as the view's nested `ForEach`es show them.
  var posts: [Post] {
    self.feed.flatMap { $0.value.posts }
  }

  var errorMessage: String? {
    self.$feed.error.map { "Error: \($0.localizedDescription)" }
  }

  var loadMoreButtonTitle: String {
    self.$feed.isLoading ? "Loading..." : "Load More"
  }

  var hasMorePosts: Bool {
    self.$feed.hasNextPage
  }

  /// Waits for the fetch of the first page that creating the model started, if any.
  func waitForInitialPage() async throws {
    _ = try await self.$feed.store.initialPageActiveTasks.first?.runIfNeeded()
  }

  func loadMoreButtonTapped() async throws {
    try await self.$feed.fetchNextPage()
  }
}
