import Foundation
import OperationCore
import OperationSynchronization
import OperationTestSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension URLSession {
  /// A session that answers `https://dummyjson.com` requests with ``DummyJSONStub``, without the
  /// network.
  ///
  /// It is a session of its own, not `URLSession.shared`, so registering the stub does not depend
  /// on the order in which test targets first use the shared session.
  static var dummyJSONStub: URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.protocolClasses = [DummyJSONStub.self]
    return URLSession(configuration: configuration)
  }
}

/// Answers the dummyjson.com requests of the README examples:
///
/// - `GET /posts/<id>`: posts 1 to 250 exist (post *n* is ``post(_:)``), 999 answers 500 with a
///   body that is not a post, and every other id is a 404;
/// - `POST /posts/add`: echoes the JSON body's `userId`, `title` and `body` as a new post with id
///   252, or answers 400 when the title is empty or the body is not such JSON;
/// - `GET /posts?limit=<l>&skip=<s>`: a page of a feed of ``feedTotal`` posts.
///
/// A test can hold the answers to a path until it opens a gate (``hold(path:)``) and count the
/// requests for a path (``requestCount(path:)``). Tests run in parallel, so each test uses paths of
/// its own (post ids, post titles).
final class DummyJSONStub: URLProtocol {
  static let feedTotal = 25

  private struct Registry {
    var gates = [String: Gate]()
    var counts = [String: Int]()
  }

  private static let registry = Lock(Registry())

  /// Holds the answers to requests for `path` (a post path, or `add:<title>` for a created post)
  /// until the returned gate opens.
  static func hold(path: String) -> Gate {
    let gate = Gate()
    self.registry.withLock { $0.gates[path] = gate }
    return gate
  }

  /// How many requests for `path` arrived.
  static func requestCount(path: String) -> Int {
    self.registry.withLock { $0.counts[path, default: 0] }
  }

  /// The post the stub answers for an id.
  static func post(_ id: Int) -> Post {
    Post(id: id, userId: id % 10 + 1, title: "Post \(id)", body: "The body of post \(id).")
  }

  override class func canInit(with request: URLRequest) -> Bool {
    request.url?.host == "dummyjson.com"
  }

  override class func canonicalRequest(for request: URLRequest) -> URLRequest {
    request
  }

  override func startLoading() {
    guard let url = self.request.url else { return }
    let (key, status, body) = self.answer(for: url)
    let gate = Self.registry.withLock { registry -> Gate? in
      registry.counts[key, default: 0] += 1
      return registry.gates[key]
    }
    guard let gate else {
      self.respond(url: url, status: status, body: body)
      return
    }
    let held = HeldStub(stub: self)
    Task {
      await gate.wait()
      held.stub.respond(url: url, status: status, body: body)
    }
  }

  /// Hands a held request's protocol instance to the task that answers it.
  private struct HeldStub: @unchecked Sendable {
    // NB: `URLProtocol` is not `Sendable`. URL loading keeps the instance alive until it finishes
    // loading and leaves it alone while it waits for an answer, so from `startLoading` on only the
    // answering task uses it.
    let stub: DummyJSONStub
  }

  override func stopLoading() {}

  private func respond(url: URL, status: Int, body: String) {
    let response = HTTPURLResponse(
      url: url,
      statusCode: status,
      httpVersion: "HTTP/1.1",
      headerFields: ["Content-Type": "application/json"]
    )!
    self.client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
    self.client?.urlProtocol(self, didLoad: Data(body.utf8))
    self.client?.urlProtocolDidFinishLoading(self)
  }

  private func answer(for url: URL) -> (key: String, status: Int, body: String) {
    if self.request.httpMethod == "POST" && url.path == "/posts/add" {
      return Self.addPost(body: self.requestBody())
    }
    if url.path == "/posts" {
      return Self.feedPage(url: url)
    }
    let id = Int(url.lastPathComponent) ?? 0
    if id == 999 {
      return (url.path, 500, #"{"message":"Internal server error"}"#)
    }
    guard (1...250).contains(id) else {
      return (url.path, 404, #"{"message":"Post not found"}"#)
    }
    return (url.path, 200, Self.json(Self.post(id)))
  }

  private struct Draft: Codable {
    let userId: Int
    let title: String
    let body: String
  }

  private static func addPost(body: Data?) -> (key: String, status: Int, body: String) {
    guard let body, let draft = try? JSONDecoder().decode(Draft.self, from: body) else {
      return ("add:", 400, #"{"message":"Bad request"}"#)
    }
    let key = "add:\(draft.title)"
    guard !draft.title.isEmpty else {
      return (key, 400, #"{"message":"A post needs a title"}"#)
    }
    let created = Post(id: 252, userId: draft.userId, title: draft.title, body: draft.body)
    return (key, 200, Self.json(created))
  }

  private struct FeedPage: Codable {
    let posts: [Post]
    let total: Int
    let skip: Int
    let limit: Int
  }

  private static func feedPage(url: URL) -> (key: String, status: Int, body: String) {
    let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
    let value = { (name: String) in items.first { $0.name == name }?.value.flatMap { Int($0) } }
    let limit = value("limit") ?? 30
    let skip = value("skip") ?? 0
    let ids = Array((skip + 1)...max(skip + 1, min(skip + limit, self.feedTotal)))
    let posts = skip < self.feedTotal ? ids.map(self.post) : []
    let page = FeedPage(posts: posts, total: self.feedTotal, skip: skip, limit: limit)
    return ("/posts?skip=\(skip)", 200, self.json(page))
  }

  private static func json(_ value: some Encodable) -> String {
    let data = (try? JSONEncoder().encode(value)) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }

  /// The body of the request; URL loading may hand it over as a stream instead of `httpBody`.
  private func requestBody() -> Data? {
    if let body = self.request.httpBody { return body }
    guard let stream = self.request.httpBodyStream else { return nil }
    stream.open()
    defer { stream.close() }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 1024)
    while stream.hasBytesAvailable {
      let count = stream.read(&buffer, maxLength: buffer.count)
      guard count > 0 else { break }
      data.append(buffer, count: count)
    }
    return data
  }
}
