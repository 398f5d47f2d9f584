import Foundation
import Operation

extension OperationContext {
  /// The posts API that the demo's operations call; dummyjson.com unless set.
  var postsAPI: PostsAPI {
    get { self[PostsAPIKey.self] }
    set { self[PostsAPIKey.self] = newValue }
  }

  /// Where the demo's operations report their attempts; nothing is reported unless set.
  var demoReporter: DemoReporter? {
    get { self[DemoReporterKey.self] }
    set { self[DemoReporterKey.self] = newValue }
  }

  private enum PostsAPIKey: Key {
    // NB: A literal URL is always valid.
    static let defaultValue = PostsAPI(baseURL: URL(string: "https://dummyjson.com")!)
  }

  private enum DemoReporterKey: Key {
    static let defaultValue: DemoReporter? = nil
  }
}

extension OperationEventHandler {
  /// A handler for `handleEvents(with:)` that reports each attempt of a run: placed inside
  /// `retry(limit:)`, it runs once per attempt, and the context's `operationRetryIndex` says which.
  static func reportingAttempts(label: String) -> Self {
    OperationEventHandler(
      onRunStarted: { context in
        context.demoReporter?.attemptStarted(
          label: label,
          retryIndex: context.operationRetryIndex,
          maxRetries: context.operationMaxRetries
        )
      },
      onResultReceived: { result, context in
        guard case .failure(let error) = result,
          context.operationResultUpdateReason == .returnedFinalResult
        else { return }
        context.demoReporter?.attemptFailed(
          label: label,
          retryIndex: context.operationRetryIndex,
          maxRetries: context.operationMaxRetries,
          error: error
        )
      }
    )
  }
}
