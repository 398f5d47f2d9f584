import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Makes sure `URLSession.shared` asks ``DummyJSONStub`` before the built-in HTTP protocol.
///
/// On Linux, `URLSession.shared` copies the registered protocol classes once, when it is first
/// used, and the built-in HTTP protocol registers itself when the process creates its first
/// session. If another test (such as the `URLConnectionObserver` tests) created a session before
/// the README tests ran, that copy would list the HTTP protocol first and the stub would never be
/// asked. So, once per process, register the stub and move the built-in protocols behind it
/// before the shared session exists. The stub stays registered: it only answers requests for
/// `dummyjson.com`.
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

/// Answers the README examples' requests to `https://dummyjson.com` without the network.
///
/// - `/posts/<id>`: post 1 exists, every other id is a 404.
/// - `/posts?limit=<n>&skip=<s>`: a feed of ``feedTotal`` posts, `n` at a time from `s`.
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
    let (statusCode, body) =
      url.lastPathComponent == "posts" ? Self.feed(for: url) : Self.post(for: url)
    let response = HTTPURLResponse(
      url: url,
      statusCode: statusCode,
      httpVersion: "HTTP/1.1",
      headerFields: ["Content-Type": "application/json"]
    )!
    self.client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
    self.client?.urlProtocol(self, didLoad: Data(body.utf8))
    self.client?.urlProtocolDidFinishLoading(self)
  }

  override func stopLoading() {}

  private static func post(for url: URL) -> (Int, String) {
    url.lastPathComponent == "1"
      ? (200, #"{"id":1,"userId":5,"title":"Hello","body":"World"}"#) : (404, "{}")
  }

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
}
