import Foundation
import OperationSynchronization
import OperationTestSupport
import SharingOperation
import Testing

// The ObservingState article's placeholder and selection examples (ObservingStateModels.swift),
// against the stubbed dummyjson.com API, as the README example tests do.

@MainActor
@Suite(.timeLimit(.minutes(1))) struct `ObservingState example tests` {
  @Dependency(\.defaultOperationClient) private var client

  @Test func `The Pager Keeps The Previous Post Dimmed While The Next One Loads`() async throws {
    try await withStubbedAPI {
      let model = PostPagerModel(id: 1)
      _ = try await model.$post.store.activeTasks.first?.runIfNeeded()
      #expect(model.title == DummyJSONStub.post(1).title)
      #expect(!model.isDimmed)

      let gate = DummyJSONStub.hold(path: "/posts/2")
      model.nextButtonTapped()
      #expect(model.title == DummyJSONStub.post(1).title)
      #expect(model.isDimmed)
      #expect(model.$post.isLoading)

      await confirmation { changed in
        withObservationTracking {
          _ = model.isDimmed
        } onChange: {
          changed()
        }
        gate.open()
        _ = try? await model.$post.store.activeTasks.first?.runIfNeeded()
      }
      #expect(model.title == DummyJSONStub.post(2).title)
      #expect(!model.isDimmed)
    }
  }

  @Test func `The Title Model Is Told Only When The Title Changes`() async throws {
    try await withStubbedAPI {
      let model = PostTitleModel(id: 4)
      let store = self.client.store(for: Post.query(for: 4))
      _ = try await store.activeTasks.first?.runIfNeeded()
      #expect(model.title == DummyJSONStub.post(4).title)

      let changes = Lock(0)
      withObservationTracking {
        _ = model.title
      } onChange: {
        changes.withLock { $0 += 1 }
      }
      try await store.fetch()
      #expect(DummyJSONStub.requestCount(path: "/posts/4") == 2)
      #expect(changes.withLock { $0 } == 0)

      store.withExclusiveAccess { $0.currentValue??.title = "Edited" }
      #expect(changes.withLock { $0 } == 1)
      #expect(model.title == "Edited")
    }
  }

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
