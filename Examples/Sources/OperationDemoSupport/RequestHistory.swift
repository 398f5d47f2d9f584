/// The requests a server received, in the order it received them, and whether each one reached
/// its route (rather than being failed by the fault injection or the offline switch).
///
/// It answers questions of order, such as whether the feed was fetched again after a post was
/// created:
///
/// ```swift
/// var history = RequestHistory()
/// history.record(key: "GET /posts?limit=10&skip=0", reachedRoute: true)
/// history.record(key: "POST /posts/add", reachedRoute: true)
/// history.record(key: "GET /posts?limit=10&skip=0", reachedRoute: true)
/// history.routedRequests(afterLast: "POST /posts/add") { $0.hasPrefix("GET /posts?") }  // 1
/// ```
public struct RequestHistory: Hashable, Sendable {
  /// One request.
  public struct Entry: Hashable, Sendable {
    /// The request's key: its method, path and query, such as `GET /posts?limit=10&skip=0`.
    public var key: String

    /// Whether the request reached its route.
    public var reachedRoute: Bool

    /// Creates an entry.
    ///
    /// - Parameters:
    ///   - key: The request's key.
    ///   - reachedRoute: Whether the request reached its route.
    public init(key: String, reachedRoute: Bool) {
      self.key = key
      self.reachedRoute = reachedRoute
    }
  }

  /// The requests, oldest first.
  public private(set) var entries = [Entry]()

  /// Creates an empty history.
  public init() {}

  /// Records a request after the ones recorded so far.
  ///
  /// - Parameters:
  ///   - key: The request's key.
  ///   - reachedRoute: Whether the request reached its route.
  public mutating func record(key: String, reachedRoute: Bool) {
    self.entries.append(Entry(key: key, reachedRoute: reachedRoute))
  }

  /// Counts the requests that reached their route after the last request with `key` that did.
  ///
  /// - Parameters:
  ///   - key: The key of the request to count from, such as `POST /posts/add`.
  ///   - isIncluded: Whether a later request's key counts.
  /// - Returns: The number of later requests with an included key that reached their route, or
  ///   `nil` when no request with `key` reached its route.
  /// - Complexity: O(*n*), where *n* is the number of requests recorded.
  public func routedRequests(
    afterLast key: String,
    where isIncluded: (String) -> Bool
  ) -> Int? {
    guard
      let index = self.entries.lastIndex(where: { $0.key == key && $0.reachedRoute })
    else { return nil }
    return self.entries[(index + 1)...].count { $0.reachedRoute && isIncluded($0.key) }
  }
}
