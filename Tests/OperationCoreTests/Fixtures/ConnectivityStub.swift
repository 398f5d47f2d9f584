import Foundation
import OperationCore
import OperationSynchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A URL session and URL whose pings answer from a script instead of the network.
///
/// Each stub owns a unique URL, so tests running in parallel never share outcomes. Outcomes are
/// consumed in order; once the script is empty, every ping gets a 200 response.
final class ConnectivityStub: Sendable {
  enum Outcome: Sendable {
    case response(statusCode: Int)
    case failure(URLError.Code)
  }

  private struct State {
    var outcomes: [Outcome]
    var methods = [String]()
  }

  let url: URL
  let session: URLSession
  private let state: Lock<State>

  init(_ outcomes: [Outcome] = []) {
    self.url = URL(string: "https://connectivity.stub/\(UUID().uuidString)")!
    self.state = Lock(State(outcomes: outcomes))
    let configuration = URLSessionConfiguration.ephemeral
    configuration.protocolClasses = [StubConnectivityProtocol.self]
    self.session = URLSession(configuration: configuration)
    registry.withLock { $0[self.url.path] = self }
  }

  /// The HTTP methods of the requests received so far.
  var methods: [String] {
    self.state.withLock { $0.methods }
  }

  /// Adds outcomes for later pings.
  func enqueue(_ outcomes: Outcome...) {
    self.state.withLock { $0.outcomes.append(contentsOf: outcomes) }
  }

  fileprivate func nextOutcome(method: String) -> Outcome {
    self.state.withLock { state in
      state.methods.append(method)
      return state.outcomes.isEmpty ? .response(statusCode: 200) : state.outcomes.removeFirst()
    }
  }
}

private let registry = Lock([String: ConnectivityStub]())

private final class StubConnectivityProtocol: URLProtocol {
  override class func canInit(with request: URLRequest) -> Bool {
    request.url?.host == "connectivity.stub"
  }

  override class func canonicalRequest(for request: URLRequest) -> URLRequest {
    request
  }

  override func startLoading() {
    guard let url = self.request.url,
      let stub = registry.withLock({ $0[url.path] })
    else {
      self.client?.urlProtocol(self, didFailWithError: URLError(.unsupportedURL))
      return
    }
    switch stub.nextOutcome(method: self.request.httpMethod ?? "GET") {
    case .response(let statusCode):
      let response = HTTPURLResponse(
        url: url,
        statusCode: statusCode,
        httpVersion: "HTTP/1.1",
        headerFields: nil
      )!
      self.client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
      self.client?.urlProtocolDidFinishLoading(self)
    case .failure(let code):
      self.client?.urlProtocol(self, didFailWithError: URLError(code))
    }
  }

  override func stopLoading() {}
}
