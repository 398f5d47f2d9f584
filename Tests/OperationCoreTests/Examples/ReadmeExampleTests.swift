import Foundation
import Operation
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
    prepareSharedSessionForStub()
    #expect(URLProtocol.registerClass(StubPostsProtocol.self))
    defer { URLProtocol.unregisterClass(StubPostsProtocol.self) }

    let client = OperationClient()
    let store = client.store(for: Post.query(for: 1))
    let post = try await store.fetch()
    #expect(post == Post(id: 1, userId: 5, title: "Hello", body: "World"))
    #expect(store.currentValue == post)
    #expect(client.store(for: Post.query(for: 1)) === store)
  }

  @Test func `The Post Query Returns Nil For A Missing Post`() async throws {
    prepareSharedSessionForStub()
    #expect(URLProtocol.registerClass(StubPostsProtocol.self))
    defer { URLProtocol.unregisterClass(StubPostsProtocol.self) }

    let store = OperationStore.detached(query: Post.query(for: 404), initialValue: nil)
    #expect(try await store.fetch() == nil)
    #expect(store.status.isSuccessful)
  }
}

/// Makes sure `URLSession.shared` asks ``StubPostsProtocol`` before the built-in HTTP protocol.
///
/// On Linux, `URLSession.shared` copies the registered protocol classes once, when it is first
/// used, and the built-in HTTP protocol registers itself when the process creates its first
/// session. If another test (such as the `URLConnectionObserver` tests) created a session before
/// this suite ran, that copy would list the HTTP protocol first and the stub would never be asked.
/// So, once per process, register the stub and move the built-in protocols behind it before the
/// shared session exists.
private func prepareSharedSessionForStub() {
  _ = sharedSessionPrepared
}

private let sharedSessionPrepared: Void = {
  #if canImport(FoundationNetworking)
    _ = URLProtocol.registerClass(StubPostsProtocol.self)
    for builtIn in URLSessionConfiguration.default.protocolClasses ?? [] {
      URLProtocol.unregisterClass(builtIn)
      _ = URLProtocol.registerClass(builtIn)
    }
    _ = URLSession.shared
  #endif
}()

/// Answers requests for `https://dummyjson.com/posts/<id>` without the network: post 1 exists,
/// every other id is a 404.
private final class StubPostsProtocol: URLProtocol {
  override class func canInit(with request: URLRequest) -> Bool {
    request.url?.host == "dummyjson.com"
  }

  override class func canonicalRequest(for request: URLRequest) -> URLRequest {
    request
  }

  override func startLoading() {
    guard let url = self.request.url else { return }
    let isFound = url.lastPathComponent == "1"
    let body = isFound ? #"{"id":1,"userId":5,"title":"Hello","body":"World"}"# : "{}"
    let response = HTTPURLResponse(
      url: url,
      statusCode: isFound ? 200 : 404,
      httpVersion: "HTTP/1.1",
      headerFields: ["Content-Type": "application/json"]
    )!
    self.client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
    self.client?.urlProtocol(self, didLoad: Data(body.utf8))
    self.client?.urlProtocolDidFinishLoading(self)
  }

  override func stopLoading() {}
}
