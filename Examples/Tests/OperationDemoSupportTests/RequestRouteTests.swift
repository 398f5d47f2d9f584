import OperationDemoSupport
import Testing

@Suite struct `RequestRoute tests` {
  @Test func `identifiers become placeholders and the query is not part of the route`() {
    #expect(
      RequestRoute.name(method: "GET", path: "/posts/3", hasIdempotencyKey: false)
        == RequestRoute.post
    )
    #expect(
      RequestRoute.name(method: "GET", path: "/posts/9999", hasIdempotencyKey: false)
        == "GET /posts/{id}"
    )
    #expect(
      RequestRoute.name(method: "GET", path: "/posts", hasIdempotencyKey: false)
        == RequestRoute.feedPages
    )
    #expect(
      RequestRoute.name(method: "POST", path: "/outbox/lanes/12", hasIdempotencyKey: true)
        == "POST /outbox/lanes/{lane} + Idempotency-Key"
    )
    #expect(
      RequestRoute.name(method: "GET", path: "/health", hasIdempotencyKey: false)
        == RequestRoute.health
    )
  }

  @Test func `the users API has two routes, which the seeded failures leave alone`() {
    #expect(
      RequestRoute.name(method: "GET", path: "/users/7", hasIdempotencyKey: false)
        == RequestRoute.user
    )
    #expect(
      RequestRoute.name(method: "GET", path: "/users", hasIdempotencyKey: false)
        == RequestRoute.users
    )
    #expect(RequestRoute.exemptFromInjectedFailures == [RequestRoute.user, RequestRoute.users])
    #expect(!RequestRoute.exemptFromInjectedFailures.contains(RequestRoute.post))
  }

  @Test func `a request with an idempotency key has a route of its own`() {
    #expect(
      RequestRoute.name(method: "POST", path: "/posts/add", hasIdempotencyKey: false)
        == RequestRoute.createPost
    )
    #expect(
      RequestRoute.name(method: "POST", path: "/posts/add", hasIdempotencyKey: true)
        == RequestRoute.createPostIdempotently
    )
  }

  @Test func `components that are not numbers stay`() {
    #expect(
      RequestRoute.name(method: "GET", path: "/posts/abc", hasIdempotencyKey: false)
        == "GET /posts/abc"
    )
    #expect(RequestRoute.name(method: "GET", path: "/", hasIdempotencyKey: false) == "GET /")
  }
}
