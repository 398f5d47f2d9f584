import Foundation
import Operation

// The client side follows the seed README's examples: the same types and modifiers, with
// `PostsAPI` (read from the operation's context) in place of hard-coded dummyjson.com URLs.

struct Post: Hashable, Identifiable, Sendable, Codable {
  let id: Int
  var userId: Int
  var title: String
  var body: String
}

extension Post {
  static func query(for id: Int) -> some QueryRequest<Self?, any Error> {
    Query(id: id)
      // Inside `retry`, so the handler sees every attempt and its `operationRetryIndex`.
      .handleEvents(with: .reportingAttempts(label: "post \(id)"))
      .retry(limit: 3)
      .deduplicated()
      // A real app observes the device: `LinuxNetworkObserver.startingShared()` on Linux,
      // `NWPathMonitorObserver.startingShared()` on Apple platforms. The demo's observer is a
      // `MockNetworkObserver` that it flips together with the server's offline switch.
      .rerunOnChange(of: .connected(to: DemoNetwork.observer))
  }

  struct Query: QueryRequest, Hashable {
    let id: Int

    func fetch(
      isolation: isolated (any Actor)?,
      in context: OperationContext,
      with continuation: OperationContinuation<Post?, any Error>
    ) async throws -> Post? {
      try await context.postsAPI.post(id: self.id)
    }
  }
}

/// The network observer that the demo's post queries rerun on.
enum DemoNetwork {
  static let observer = MockNetworkObserver(initialStatus: .connected)
}
