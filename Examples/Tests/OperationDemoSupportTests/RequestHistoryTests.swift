import OperationDemoSupport
import Testing

@Suite struct `RequestHistory tests` {
  private static let create = "POST /posts/add"
  private static let isFeed: @Sendable (String) -> Bool = { $0.hasPrefix("GET /posts?") }

  @Test func `requests are kept in the order received`() {
    var history = RequestHistory()
    history.record(key: "GET /posts/1", reachedRoute: false)
    history.record(key: "GET /posts/1", reachedRoute: true)
    #expect(
      history.entries == [
        RequestHistory.Entry(key: "GET /posts/1", reachedRoute: false),
        RequestHistory.Entry(key: "GET /posts/1", reachedRoute: true),
      ]
    )
  }

  @Test func `counts the routed requests after the last routed one with the key`() {
    var history = RequestHistory()
    history.record(key: "GET /posts?limit=10&skip=0", reachedRoute: true)
    history.record(key: Self.create, reachedRoute: true)
    history.record(key: "GET /posts?limit=10&skip=0", reachedRoute: true)
    history.record(key: Self.create, reachedRoute: true)
    history.record(key: "GET /posts?limit=10&skip=0", reachedRoute: false)
    history.record(key: "GET /posts?limit=10&skip=0", reachedRoute: true)
    history.record(key: "GET /posts/3", reachedRoute: true)
    history.record(key: "GET /posts?limit=10&skip=10", reachedRoute: true)
    #expect(history.routedRequests(afterLast: Self.create, where: Self.isFeed) == 2)
  }

  @Test func `a refused request with the key does not count as the start`() {
    var history = RequestHistory()
    history.record(key: Self.create, reachedRoute: true)
    history.record(key: "GET /posts?limit=10&skip=0", reachedRoute: true)
    history.record(key: Self.create, reachedRoute: false)
    #expect(history.routedRequests(afterLast: Self.create, where: Self.isFeed) == 1)
  }

  @Test func `nothing after the last request counts zero`() {
    var history = RequestHistory()
    history.record(key: "GET /posts?limit=10&skip=0", reachedRoute: true)
    history.record(key: Self.create, reachedRoute: true)
    #expect(history.routedRequests(afterLast: Self.create, where: Self.isFeed) == 0)
  }

  @Test func `without a routed request with the key there is no count`() {
    var history = RequestHistory()
    #expect(history.routedRequests(afterLast: Self.create, where: Self.isFeed) == nil)
    history.record(key: Self.create, reachedRoute: false)
    history.record(key: "GET /posts?limit=10&skip=0", reachedRoute: true)
    #expect(history.routedRequests(afterLast: Self.create, where: Self.isFeed) == nil)
  }
}
