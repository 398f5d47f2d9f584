import Operation
import OperationDemoSupport

/// Step 5: the create-post mutation.
enum CreatePostStep {
  static func run(_ env: DemoEnvironment) async {
    env.terminal.step(5, "A mutation: client.store(for: Post.createMutation), then mutate(with:)")
    let store = env.client.store(for: Post.createMutation)
    let printer = StatusPrinter(for: store, label: "create post", terminal: env.terminal) {
      statusText($0.status) { describe(post: $0) }
    }
    let arguments = Post.CreateMutation.Arguments(
      userId: 7,
      title: "Hello from swift-operation",
      body: "Created by the demo through a MutationRequest."
    )
    let handler = MutationEventHandler(
      onStateChanged: printer.stateChanged,
      onMutatingStarted: { _, context in printer.runStarted(context) }
    )
    // NB: The embedded server keeps the post, so the id to expect is read before it does.
    let expectedId = env.server.map { $0.catalog.posts.count + 1 }
    let result: Result<Post, any Error>
    do {
      result = .success(try await store.mutate(with: arguments, handler: handler))
    } catch {
      result = .failure(error)
    }
    env.tallyDeduplicated(storeRuns: printer.runCount, label: "create post")
    env.checkRun(
      result,
      label: "create post",
      serverKeys: { $0 == "POST /posts/add" },
      expectation: "the new post, with its server-assigned id"
    ) { post in
      post.title == arguments.title && post.body == arguments.body
        && post.userId == arguments.userId && (expectedId.map { post.id == $0 } ?? (post.id > 0))
    }
  }
}
