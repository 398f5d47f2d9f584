import Foundation
import OperationTestSupport
import SharingOperation
import Testing

// The README's PostView, CreatePostView, PostsFeedView and sharing example, as the `@Observable` models of
// ReadmeModels.swift, against the stubbed dummyjson.com API. Every test runs its models inside
// `withDependencies`, which gives the operations the stub's session; the client is the test's
// own `@Dependency(\.defaultOperationClient)`.

@MainActor
@Suite struct `README example tests` {
  // MARK: - PostView

  @Test func `The Post Model Shows Loading Then The Post`() async throws {
    try await withStubbedAPI {
      let gate = DummyJSONStub.hold(path: "/posts/2")
      let model = PostModel(id: 2)
      #expect(model.content == .loading)
      #expect(model.post == nil)

      await confirmation { changed in
        withObservationTracking {
          _ = model.content
        } onChange: {
          changed()
        }
        gate.open()
        _ = try? await model.$post.store.activeTasks.first?.runIfNeeded()
      }
      #expect(model.content == .post(DummyJSONStub.post(2)))
      #expect(model.post == DummyJSONStub.post(2))
    }
  }

  @Test func `The Post Model Shows Not Found For A Missing Post`() async throws {
    try await withStubbedAPI {
      let model = PostModel(id: 404)
      _ = try await model.$post.store.activeTasks.first?.runIfNeeded()
      #expect(model.content == .notFound)
    }
  }

  @Test func `The Post Model Shows The Error Of A Failed Fetch`() async throws {
    try await withStubbedAPI {
      let model = PostModel(id: 999)
      _ = try? await model.$post.store.activeTasks.first?.runIfNeeded()
      guard case .error(let message) = model.content else {
        Issue.record("Expected an error, got \(model.content).")
        return
      }
      #expect(message.hasPrefix("Error: "))
    }
  }

  @Test func `Reload Fetches The Post Again`() async throws {
    try await withStubbedAPI {
      let model = PostModel(id: 3)
      _ = try await model.$post.store.activeTasks.first?.runIfNeeded()
      #expect(DummyJSONStub.requestCount(path: "/posts/3") == 1)

      model.$post.withLock { $0??.title = "Edited" }
      #expect(model.post??.title == "Edited")

      try await model.reloadButtonTapped()
      #expect(DummyJSONStub.requestCount(path: "/posts/3") == 2)
      #expect(model.content == .post(DummyJSONStub.post(3)))
    }
  }

  // MARK: - CreatePostView

  @Test func `Creating A Post Shows Creating Then Dismisses`() async throws {
    try await withStubbedAPI {
      let gate = DummyJSONStub.hold(path: "add:Hello")
      let model = CreatePostModel(userId: 5)
      model.title = "Hello"
      model.postBody = "World"
      #expect(model.createButtonTitle == "Create")
      #expect(!model.isCreateButtonDisabled)

      var creating: Task<Void, any Error>?
      await withCheckedContinuation { continuation in
        withObservationTracking {
          _ = model.isCreateButtonDisabled
        } onChange: {
          continuation.resume()
        }
        creating = Task { try await model.createButtonTapped() }
      }
      #expect(model.createButtonTitle == "Creating...")
      #expect(model.isCreateButtonDisabled)
      #expect(!model.isDismissed)

      gate.open()
      try await creating?.value
      #expect(model.isDismissed)
      #expect(model.createButtonTitle == "Create")
      #expect(model.errorMessage == nil)
      #expect(model.createdPost == Post(id: 252, userId: 5, title: "Hello", body: "World"))
    }
  }

  @Test func `A Failed Creation Shows The Error And Stays`() async throws {
    try await withStubbedAPI {
      let model = CreatePostModel(userId: 5)
      model.postBody = "No title"

      await #expect(throws: DummyJSONError(statusCode: 400)) {
        try await model.createButtonTapped()
      }
      #expect(!model.isDismissed)
      #expect(model.errorMessage != nil)
      #expect(model.createButtonTitle == "Create")
    }
  }

  @Test func `Creating A Post Starts Nothing By Itself`() async throws {
    try await withStubbedAPI {
      let model = CreatePostModel(userId: 5)
      #expect(!model.isCreateButtonDisabled)
      #expect(model.createdPost == nil)
      #expect(model.createButtonTitle == "Create")
      #expect(model.attemptCount == 0)
    }
  }

  // MARK: - PostsFeedView

  // NB: One test, as the README's feed query has a single path and tests run in parallel.
  @Test func `The Feed Loads Its First Page, Then More On Request, Until The End`() async throws {
    try await withStubbedAPI {
      let model = PostsFeedModel()
      try await model.waitForInitialPage()
      #expect(model.posts.map(\.id) == Array(1...10))
      #expect(model.loadMoreButtonTitle == "Load More")
      #expect(model.hasMorePosts)

      let gate = DummyJSONStub.hold(path: "/posts?skip=10")
      var loading: Task<Void, any Error>?
      await withCheckedContinuation { continuation in
        withObservationTracking {
          _ = model.loadMoreButtonTitle
        } onChange: {
          continuation.resume()
        }
        loading = Task { try await model.loadMoreButtonTapped() }
      }
      #expect(model.loadMoreButtonTitle == "Loading...")
      gate.open()
      try await loading?.value
      #expect(model.posts.map(\.id) == Array(1...20))
      #expect(model.loadMoreButtonTitle == "Load More")

      try await model.loadMoreButtonTapped()
      #expect(model.posts.map(\.id) == Array(1...25))

      // NB: The README's `pageId(after:)` asks for one more page after the last posts (its skip
      // is still below the total), which comes back empty and ends the feed.
      try await model.loadMoreButtonTapped()
      #expect(model.posts.map(\.id) == Array(1...25))
      #expect(!model.hasMorePosts)

      try await model.loadMoreButtonTapped()
      #expect(DummyJSONStub.requestCount(path: "/posts?skip=40") == 0)
      #expect(model.errorMessage == nil)
    }
  }

  // MARK: - Sharing state

  // NB: One test, as the README's models always use post 10 and tests run in parallel.
  @Test func `Parent And Child Share One Store, One Fetch And Every Change`() async throws {
    try await withStubbedAPI {
      let gate = DummyJSONStub.hold(path: "/posts/10")
      let parent = ParentModel()
      let child = parent.child

      #expect(parent.$post.store === child.$post.store)
      #expect(parent.$post.subscriberCount == 2)
      #expect(parent.$post.isLoading)
      #expect(child.$post.isLoading)

      gate.open()
      _ = try await parent.$post.store.activeTasks.first?.runIfNeeded()
      #expect(DummyJSONStub.requestCount(path: "/posts/10") == 1)
      #expect(parent.post == DummyJSONStub.post(10))
      #expect(child.post == DummyJSONStub.post(10))

      await confirmation { changed in
        withObservationTracking {
          _ = child.post
        } onChange: {
          changed()
        }
        parent.$post.withLock { $0??.title = "Edited" }
      }
      #expect(child.post??.title == "Edited")
    }
  }

  // MARK: - Helpers

  /// Runs `body` with the stubbed dummyjson.com session as `@Dependency(\.urlSession)`.
  private func withStubbedAPI(
    _ body: @MainActor () async throws -> Void
  ) async throws {
    try await withDependencies {
      $0.urlSession = .dummyJSONStub
    } operation: {
      try await body()
    }
  }
}
