import Foundation
import OperationDemoSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `--inspect`: fetches the client's snapshot from the server's `GET /debug/operations` over HTTP
/// and prints it as a table (``InspectorTable``) after each step; on a terminal, a live view of
/// the table also redraws while a step runs.
///
/// It has a URL session of its own, apart from the posts API's, so that its requests are not
/// among the client's requests that the checks count (the server leaves them out of its counts
/// too).
final class Inspector: Sendable {
  /// How often the live view redraws.
  static let refreshInterval = Duration.milliseconds(250)

  /// The most lines of the live view, so that it fits on the screen (the cursor cannot move up
  /// past the screen's top, so a taller frame could not be erased).
  static let maxLiveLines = 22

  /// The URL of `GET /debug/operations`.
  let url: URL
  private let terminal: Terminal
  private let session: URLSession
  private let failures = Locked(0)

  /// A fetch of the snapshot that failed.
  enum FetchError: Error, CustomStringConvertible {
    /// The server answered with another status than 200, and maybe a `{message}`.
    case status(Int, message: String?)
    /// The request did not get an answer.
    case transport(String)
    /// The answer was not a snapshot.
    case decoding(String)

    var description: String {
      switch self {
      case .status(let code, let message?): "HTTP \(code): \(message)"
      case .status(let code, nil): "HTTP \(code)"
      case .transport(let reason): reason
      case .decoding(let reason): "not a snapshot: \(reason)"
      }
    }
  }

  /// Creates an inspector of the client the server at `baseURL` reports.
  init(baseURL: URL, terminal: Terminal) {
    self.url = baseURL.appending(path: String(DebugEndpoint.operationsPath.dropFirst()))
    self.terminal = terminal
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.timeoutIntervalForRequest = 5
    self.session = URLSession(configuration: configuration)
  }

  /// The number of fetches that got no snapshot, leaving out those cancelled when a live view
  /// stopped.
  var failedFetches: Int {
    self.failures.withLock { $0 }
  }

  /// Fetches the snapshot.
  func fetch() async -> Result<InspectorSnapshot, FetchError> {
    let result = await self.fetchOnce()
    if case .failure = result, !Task.isCancelled {
      self.failures.withLock { $0 += 1 }
    }
    return result
  }

  private func fetchOnce() async -> Result<InspectorSnapshot, FetchError> {
    let data: Data
    let response: URLResponse
    do {
      (data, response) = try await self.session.data(for: URLRequest(url: self.url))
    } catch {
      return .failure(.transport("\(error)"))
    }
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    guard status == 200 else {
      let message = try? JSONDecoder().decode([String: String].self, from: data)["message"]
      return .failure(.status(status, message: message))
    }
    do {
      return .success(try InspectorJSON.decoder().decode(InspectorSnapshot.self, from: data))
    } catch {
      return .failure(.decoding("\(error)"))
    }
  }

  /// Fetches the snapshot and prints it as a table under a title, such as `after step 4`.
  ///
  /// - Returns: The snapshot, or why there is none.
  @discardableResult
  func show(_ title: String) async -> Result<InspectorSnapshot, FetchError> {
    let result = await self.fetch()
    self.terminal.line()
    for line in Self.lines(title, result) {
      self.terminal.line(line)
    }
    return result
  }

  /// Runs `body`; on a terminal, redraws a live view of the table below the output about every
  /// ``refreshInterval`` meanwhile, and erases it when `body` returns.
  ///
  /// - Parameters:
  ///   - title: What runs, such as `step 4`.
  ///   - body: The work.
  func whileRunning(_ title: String, _ body: () async -> Void) async {
    guard self.terminal.isInteractive else {
      await body()
      return
    }
    let live = Task { await self.refreshLiveView(title) }
    await body()
    live.cancel()
    await live.value
    self.terminal.endLiveFrame()
  }

  private func refreshLiveView(_ title: String) async {
    let clock = ContinuousClock()
    while !Task.isCancelled {
      let start = clock.now
      let result = await self.fetch()
      guard !Task.isCancelled else { return }
      let lines = Self.lines("live while \(title) runs (every 250 ms)", result)
      self.terminal.setLiveFrame(LiveView.fit(lines, maxLines: Self.maxLiveLines, indent: "   "))
      try? await Task.sleep(until: start + Self.refreshInterval, clock: clock)
    }
  }

  /// A title line, then the table (or the reason there is none), indented.
  private static func lines(_ title: String, _ result: Result<InspectorSnapshot, FetchError>)
    -> [String]
  {
    switch result {
    case .success(let snapshot):
      [
        "   inspect · \(title) · GET \(DebugEndpoint.operationsPath): \(snapshot.stores.count) store(s)"
      ]
        + InspectorTable.render(snapshot).map { "   \($0)" }
    case .failure(let error):
      ["   inspect · \(title) · GET \(DebugEndpoint.operationsPath) gave no snapshot: \(error)"]
    }
  }
}
