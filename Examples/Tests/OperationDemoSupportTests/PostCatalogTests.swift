import OperationDemoSupport
import Testing

@Suite struct `PostCatalog tests` {
  let catalog = PostCatalog(count: 25)

  @Test func `posts have identifiers from 1 and are the same on every run`() {
    #expect(self.catalog.posts.map(\.id) == Array(1...25))
    #expect(PostCatalog(count: 25) == self.catalog)
    #expect(Set(self.catalog.posts.map(\.title)).count == 25)
  }

  @Test func `a missing post is nil`() {
    #expect(self.catalog.post(id: 3)?.id == 3)
    #expect(self.catalog.post(id: 0) == nil)
    #expect(self.catalog.post(id: 26) == nil)
    #expect(self.catalog.post(id: -1) == nil)
  }

  @Test func `an identifier at the ends of Int is a missing post, not a trap`() {
    // NB: `GET /posts/-9223372036854775808` used to stop the server on `id - 1`.
    #expect(self.catalog.post(id: Int.min) == nil)
    #expect(self.catalog.post(id: Int.max) == nil)
  }

  @Test func `a page that would end past the largest integer is rejected, not a trap`() throws {
    // NB: `GET /posts?limit=9223372036854775807&skip=1` used to stop the server on `skip + limit`.
    #expect(throws: PageQueryError.self) {
      try self.catalog.page(rawLimit: "9223372036854775807", rawSkip: "1")
    }
    #expect(throws: PageQueryError.self) {
      try self.catalog.page(limit: 2, skip: Int.max)
    }
    let error = #expect(throws: PageQueryError.self) {
      try self.catalog.page(limit: Int.max, skip: 1)
    }
    #expect(
      error?.description == "'limit' must be at most \(Int.max - 1) after skip=1, got '\(Int.max)'"
    )
    #expect(try self.catalog.page(limit: Int.max, skip: 0).posts.count == 25)
    #expect(try self.catalog.page(limit: Int.max - 24, skip: 24).posts.map(\.id) == [1])
    #expect(try self.catalog.page(limit: 1, skip: Int.max - 1).posts.isEmpty)
  }

  @Test func `pages have posts, total, skip and limit like dummyjson, newest first`() throws {
    let page = try self.catalog.page(limit: 10, skip: 20)
    #expect(page.posts.map(\.id) == [5, 4, 3, 2, 1])
    #expect(page.total == 25)
    #expect(page.skip == 20)
    #expect(page.limit == 5)
  }

  @Test func `limit defaults to 30 and 0 means every post`() throws {
    #expect(try PostCatalog(count: 40).page(limit: nil, skip: nil).posts.count == 30)
    #expect(try self.catalog.page(limit: 0, skip: 5).posts.count == 20)
  }

  @Test func `a page past the end is empty`() throws {
    let page = try self.catalog.page(limit: 10, skip: 100)
    #expect(page.posts.isEmpty)
    #expect(page.skip == 100)
  }

  @Test(arguments: [
    ("-1", "0"), ("ten", "0"), ("10", "-5"), ("10", "1.5"), ("9223372036854775808", "0"),
    ("10", "-9223372036854775808"),
  ])
  func `bad query values are rejected`(limit: String, skip: String) {
    #expect(throws: PageQueryError.self) {
      try self.catalog.page(rawLimit: limit, rawSkip: skip)
    }
  }

  @Test func `raw query values are parsed`() throws {
    #expect(
      try self.catalog.page(rawLimit: "5", rawSkip: "5").posts.map(\.id) == [20, 19, 18, 17, 16]
    )
    #expect(try self.catalog.page(rawLimit: nil, rawSkip: "24").posts.map(\.id) == [1])
  }

  @Test func `every page together lists every post once, newest first`() throws {
    let ids = try (0..<3).flatMap { try self.catalog.page(limit: 10, skip: $0 * 10).posts }
    #expect(ids.map(\.id) == Array((1...25).reversed()))
    #expect(Array(self.catalog.newestFirst) == self.catalog.posts.reversed())
  }

  @Test func `an added post gets the identifier after the last one and is kept`() throws {
    var catalog = self.catalog
    let post = catalog.add(NewPost(userId: 2, title: "T", body: "B"))
    #expect(post == CatalogPost(id: 26, userId: 2, title: "T", body: "B"))
    #expect(catalog.posts.count == 26)
    #expect(catalog.post(id: 26) == post)
    #expect(catalog.add(NewPost(userId: 3, title: "U", body: "C")).id == 27)
  }

  @Test func `an added post tops the first page and pushes the oldest one to the next`() throws {
    var catalog = self.catalog
    let post = catalog.add(NewPost(userId: 2, title: "T", body: "B"))
    let first = try catalog.page(limit: 10, skip: 0)
    #expect(first.posts.first == post)
    #expect(first.posts.map(\.id) == Array((17...26).reversed()))
    #expect(first.total == 26)
    #expect(try catalog.page(limit: 10, skip: 20).posts.map(\.id) == [6, 5, 4, 3, 2, 1])
  }
}
