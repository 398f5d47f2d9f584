import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The HTTP client of the posts API, over `URLSession`.
///
/// Operations read it from their context (``OperationContext/postsAPI``), which the demo sets on
/// the client's default context, so the same operations run against the embedded server or
/// another one.
struct PostsAPI: Sendable {
  /// The server's base URL.
  let baseURL: URL
  /// The client's request counter and its simulated outage.
  let traffic: ClientTraffic
  private let session: URLSession

  init(baseURL: URL, traffic: ClientTraffic = ClientTraffic()) {
    self.baseURL = baseURL
    self.traffic = traffic
    let configuration = URLSessionConfiguration.ephemeral
    // NB: Every attempt must reach the server: no HTTP cache may answer a retry.
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.timeoutIntervalForRequest = 10
    self.session = URLSession(configuration: configuration)
  }

  /// `GET /posts/{id}`; `nil` for a post that does not exist (HTTP 404).
  func post(id: Int) async throws -> Post? {
    let (data, status) = try await self.send(URLRequest(url: self.url("posts/\(id)")))
    if status == 404 { return nil }
    return try JSONDecoder().decode(Post.self, from: data)
  }

  /// `GET /posts?limit=&skip=`.
  func feedPage(limit: Int, skip: Int) async throws -> Post.FeedPage {
    var url = self.url("posts")
    url.append(
      queryItems: [
        URLQueryItem(name: "limit", value: "\(limit)"),
        URLQueryItem(name: "skip", value: "\(skip)"),
      ]
    )
    let (data, status) = try await self.send(URLRequest(url: url))
    guard status != 404 else { throw PostsAPIError.status(404) }
    return try JSONDecoder().decode(Post.FeedPage.self, from: data)
  }

  /// `POST /posts/add`.
  ///
  /// - Parameters:
  ///   - arguments: The new post.
  ///   - idempotencyKey: Sent as the `Idempotency-Key` header, so that the server creates one
  ///     post however many times the request is sent; `nil` sends none.
  func addPost(
    _ arguments: Post.CreateMutation.Arguments,
    idempotencyKey: String? = nil
  ) async throws -> Post {
    var request = URLRequest(url: self.url("posts/add"))
    request.httpMethod = "POST"
    request.httpBody = try JSONEncoder().encode(arguments)
    request.addValue("application/json", forHTTPHeaderField: "Content-Type")
    if let idempotencyKey {
      request.addValue(idempotencyKey, forHTTPHeaderField: "Idempotency-Key")
    }
    let (data, status) = try await self.send(request)
    guard status != 404 else { throw PostsAPIError.status(404) }
    return try JSONDecoder().decode(Post.self, from: data)
  }

  func url(_ path: String) -> URL {
    self.baseURL.appending(path: path)
  }

  /// Sends a request; answers 2xx and 404, throws for the others.
  func send(_ request: URLRequest) async throws -> (Data, Int) {
    guard !self.traffic.isOffline else { throw PostsAPIError.simulatedOutage }
    self.traffic.recordRequest()
    let data: Data
    let response: URLResponse
    do {
      (data, response) = try await self.session.data(for: request)
    } catch let error as URLError where error.code == .cannotConnectToHost {
      throw PostsAPIError.noServer(self.baseURL.absoluteString)
    } catch let error as URLError
      where error.code == .networkConnectionLost || error.code == .notConnectedToInternet
    {
      throw PostsAPIError.connectionLost
    }
    guard let status = (response as? HTTPURLResponse)?.statusCode else {
      throw PostsAPIError.invalidResponse
    }
    switch status {
    case 200..<300, 404: return (data, status)
    case 503: throw PostsAPIError.serviceUnavailable
    default: throw PostsAPIError.status(status)
    }
  }
}

/// A failed request of the posts API.
enum PostsAPIError: Error, Hashable, CustomStringConvertible {
  /// The server answered with an unexpected status.
  case status(Int)
  /// The server answered HTTP 503: it is offline.
  case serviceUnavailable
  /// The client's simulated outage (`--base-url`) kept the request from being sent.
  case simulatedOutage
  /// No server accepted the connection at the base URL (connection refused, or nothing
  /// listening).
  case noServer(String)
  /// The connection broke before the answer arrived, or there is no network.
  case connectionLost
  /// The answer was not HTTP.
  case invalidResponse

  var description: String {
    switch self {
    case .status(let code): "HTTP \(code)"
    case .serviceUnavailable: "HTTP 503, the server is offline"
    case .simulatedOutage: "not connected: the demo's simulated outage"
    case .noServer(let url): "could not connect to \(url): no server answered"
    case .connectionLost: "the connection to the server was lost"
    case .invalidResponse: "not an HTTP answer"
    }
  }
}

/// The client's request counter, and its simulated outage for servers the demo cannot switch
/// offline (`--base-url`).
final class ClientTraffic: Sendable {
  private let requests = Locked(0)
  private let offline = Locked(false)

  /// The number of requests sent.
  var requestCount: Int {
    self.requests.withLock { $0 }
  }

  /// Whether requests fail with ``PostsAPIError/simulatedOutage`` without being sent.
  var isOffline: Bool {
    get { self.offline.withLock { $0 } }
    set { self.offline.withLock { $0 = newValue } }
  }

  func recordRequest() {
    self.requests.withLock { $0 += 1 }
  }
}
