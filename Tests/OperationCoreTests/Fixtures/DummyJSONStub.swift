import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Makes `URLSession.shared` answer `https://dummyjson.com` requests with ``DummyJSONStub``,
/// without the network, for the README examples.
///
/// On Linux, `URLSession.shared` copies the registered protocol classes once, when it is first
/// used, and the built-in HTTP protocol registers itself when the process creates its first
/// session; a protocol registered later is never asked. So, once per process, register the stub
/// (the one stub for every README example) and move the built-in protocols behind it before the
/// shared session exists. Elsewhere the registration is global and stays for the whole process;
/// the stub only answers requests for dummyjson.com.
func prepareSharedSessionForDummyJSONStub() {
  _ = sharedSessionPrepared
}

private let sharedSessionPrepared: Void = {
  _ = URLProtocol.registerClass(DummyJSONStub.self)
  #if canImport(FoundationNetworking)
    for builtIn in URLSessionConfiguration.default.protocolClasses ?? [] {
      URLProtocol.unregisterClass(builtIn)
      _ = URLProtocol.registerClass(builtIn)
    }
  #endif
  _ = URLSession.shared
}()

/// Answers the dummyjson.com requests of the README examples:
///
/// - `GET /posts/<id>`: post 1 exists, every other id is a 404;
/// - `GET /posts?limit=<n>&skip=<s>`: a feed of ``feedTotal`` posts, `n` at a time from `s`;
/// - `POST /posts/add`: echoes the JSON body's `userId`, `title` and `body` as a new post with
///   id 252, or answers 400 when the body is not such JSON.
final class DummyJSONStub: URLProtocol {
  static let feedTotal = 25

  override class func canInit(with request: URLRequest) -> Bool {
    request.url?.host == "dummyjson.com"
  }

  override class func canonicalRequest(for request: URLRequest) -> URLRequest {
    request
  }

  override func startLoading() {
    guard let url = self.request.url else { return }
    let (status, body) =
      if self.request.httpMethod == "POST" && url.path == "/posts/add" {
        Self.addPost(body: self.requestBody())
      } else if url.lastPathComponent == "posts" {
        Self.feed(for: url)
      } else if url.lastPathComponent == "1" {
        (200, #"{"id":1,"userId":5,"title":"Hello","body":"World"}"#)
      } else {
        (404, "{}")
      }
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

  override func stopLoading() {}

  private static func feed(for url: URL) -> (Int, String) {
    let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
    func value(_ name: String) -> Int {
      items.first { $0.name == name }?.value.flatMap(Int.init) ?? 0
    }
    let (limit, skip) = (value("limit"), value("skip"))
    let ids = (skip..<max(skip, min(skip + limit, Self.feedTotal))).map { $0 + 1 }
    let posts = ids.map { #"{"id":\#($0),"userId":1,"title":"Post \#($0)","body":"Body"}"# }
    let body =
      #"{"posts":[\#(posts.joined(separator: ","))],"total":\#(Self.feedTotal),"#
      + #""skip":\#(skip),"limit":\#(limit)}"#
    return (200, body)
  }

  private struct Draft: Codable {
    let userId: Int
    let title: String
    let body: String
  }

  private struct Created: Codable {
    let id: Int
    let userId: Int
    let title: String
    let body: String
  }

  private static func addPost(body: Data?) -> (Int, String) {
    guard let body, let draft = try? JSONDecoder().decode(Draft.self, from: body) else {
      return (400, #"{"message":"Bad request"}"#)
    }
    let created = Created(id: 252, userId: draft.userId, title: draft.title, body: draft.body)
    let data = (try? JSONEncoder().encode(created)) ?? Data()
    return (200, String(decoding: data, as: UTF8.self))
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
