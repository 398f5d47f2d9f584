/// A post as the demo server sends it, in the shape of dummyjson.com's posts API.
public struct CatalogPost: Codable, Hashable, Sendable {
  /// The post's identifier, from 1.
  public var id: Int
  /// The author's identifier.
  public var userId: Int
  /// The title.
  public var title: String
  /// The text.
  public var body: String

  /// Creates a post.
  public init(id: Int, userId: Int, title: String, body: String) {
    self.id = id
    self.userId = userId
    self.title = title
    self.body = body
  }
}

/// One page of posts: `{posts, total, skip, limit}`, as `GET /posts?limit=&skip=` answers.
public struct CatalogPage: Codable, Hashable, Sendable {
  /// The posts of the page.
  public var posts: [CatalogPost]
  /// The number of posts in the catalog.
  public var total: Int
  /// The number of posts before the page.
  public var skip: Int
  /// The number of posts on the page.
  public var limit: Int
}

/// The body of `POST /posts/add`.
public struct NewPost: Codable, Hashable, Sendable {
  /// The author's identifier.
  public var userId: Int
  /// The title.
  public var title: String
  /// The text.
  public var body: String

  /// Creates a post to add.
  public init(userId: Int, title: String, body: String) {
    self.userId = userId
    self.title = title
    self.body = body
  }
}

/// The posts the demo server serves, generated the same way on every run, and the posts added
/// to them.
///
/// Pages list the posts newest first, as a feed does, so that a post added with ``add(_:)``
/// appears at the top of the first page:
///
/// ```swift
/// var catalog = PostCatalog(count: 100)
/// let post = catalog.add(NewPost(userId: 1, title: "Hello", body: "…"))  // id 101
/// try catalog.page(limit: 10, skip: 0).posts.first == post  // true
/// ```
public struct PostCatalog: Hashable, Sendable {
  /// The number of posts a page has when the request gives no `limit`, as on dummyjson.com.
  public static let defaultLimit = 30

  /// The posts, with identifiers `1...count`, oldest first.
  public private(set) var posts: [CatalogPost]

  /// Creates a catalog.
  ///
  /// - Parameter count: The number of posts; negative values count as zero.
  public init(count: Int = 100) {
    self.posts = (0..<max(count, 0)).map(Self.post(at:))
  }

  /// The post with an identifier.
  ///
  /// - Parameter id: The identifier.
  /// - Returns: The post, or `nil` when there is none (the server answers 404), including for
  ///   an identifier below 1.
  public func post(id: Int) -> CatalogPost? {
    // NB: `id - 1` overflows for `Int.min`, which any client can send (`GET /posts/-9223…808`):
    // the identifier is checked against the range first.
    guard id >= 1, id <= self.posts.count else { return nil }
    return self.posts[id - 1]
  }

  /// The posts in the order the pages list them: newest (the largest identifier) first.
  public var newestFirst: ReversedCollection<[CatalogPost]> {
    self.posts.reversed()
  }

  /// A page of posts, newest first.
  ///
  /// Like dummyjson.com, a `limit` of 0 means every post after `skip`, and a page past the end is
  /// empty. Unlike dummyjson.com, which lists posts by ascending identifier, the pages start with
  /// the newest post, so that a refetched feed shows the posts added since.
  ///
  /// - Parameters:
  ///   - limit: The most posts on the page; ``defaultLimit`` when `nil`.
  ///   - skip: The number of posts before the page; 0 when `nil`.
  /// - Returns: The page.
  /// - Throws: ``PageQueryError`` when `limit` or `skip` is negative, or when the page would end
  ///   past the largest integer (`skip + limit` overflows).
  public func page(limit: Int?, skip: Int?) throws(PageQueryError) -> CatalogPage {
    let limit = limit ?? Self.defaultLimit
    let skip = skip ?? 0
    guard limit >= 0 else { throw PageQueryError(name: "limit", value: "\(limit)") }
    guard skip >= 0 else { throw PageQueryError(name: "skip", value: "\(skip)") }
    // NB: Any client can send `limit=9223372036854775807&skip=1`; the page's end is checked
    // instead of computed with `+`, which would trap.
    guard !skip.addingReportingOverflow(limit).overflow else {
      throw PageQueryError(
        name: "limit",
        value: "\(limit)",
        requirement: "at most \(Int.max - skip) after skip=\(skip)"
      )
    }
    let ordered = self.newestFirst
    let start = min(skip, ordered.count)
    let end = limit == 0 ? ordered.count : start + min(limit, ordered.count - start)
    let posts = Array(ordered.dropFirst(start).prefix(end - start))
    return CatalogPage(posts: posts, total: self.posts.count, skip: skip, limit: posts.count)
  }

  /// A page of posts from the query string's raw values.
  ///
  /// - Parameters:
  ///   - rawLimit: The `limit` value of the query string, if any.
  ///   - rawSkip: The `skip` value of the query string, if any.
  /// - Returns: The page.
  /// - Throws: ``PageQueryError`` when a value is not a non-negative integer, including one too
  ///   large for an `Int`, or when `skip + limit` is (the server answers 400).
  public func page(rawLimit: String?, rawSkip: String?) throws(PageQueryError) -> CatalogPage {
    try self.page(
      limit: Self.integer(rawLimit, name: "limit"),
      skip: Self.integer(rawSkip, name: "skip")
    )
  }

  /// Adds a post, as `POST /posts/add` does, with the identifier after the last one.
  ///
  /// Unlike dummyjson.com, which answers with the new post but forgets it, the demo server keeps
  /// it, so that a feed fetched afterwards shows it (at the top of the first page).
  ///
  /// - Parameter post: The post to add.
  /// - Returns: The added post.
  @discardableResult
  public mutating func add(_ post: NewPost) -> CatalogPost {
    let added = CatalogPost(
      id: self.posts.count + 1,
      userId: post.userId,
      title: post.title,
      body: post.body
    )
    self.posts.append(added)
    return added
  }

  private static func integer(_ raw: String?, name: String) throws(PageQueryError) -> Int? {
    guard let raw else { return nil }
    guard let value = Int(raw), value >= 0 else { throw PageQueryError(name: name, value: raw) }
    return value
  }

  private static let adjectives = [
    "Quiet", "Bright", "Hidden", "Distant", "Early", "Golden", "Patient", "Restless", "Silver",
    "Wandering",
  ]
  private static let nouns = [
    "harbor", "orchard", "library", "lantern", "meadow", "river", "workshop", "garden", "signal",
    "bridge",
  ]

  private static func post(at index: Int) -> CatalogPost {
    let adjective = Self.adjectives[index % Self.adjectives.count]
    let noun = Self.nouns[(index / Self.adjectives.count) % Self.nouns.count]
    return CatalogPost(
      id: index + 1,
      userId: index % 10 + 1,
      title: "The \(adjective.lowercased()) \(noun)",
      body: "\(adjective) thoughts about a \(noun), post number \(index + 1)."
    )
  }
}

/// A `limit` or `skip` query value that is not a non-negative integer, or a page that would end
/// past the largest integer.
public struct PageQueryError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The query item's name.
  public let name: String
  /// The rejected value.
  public let value: String
  /// What the value must be, such as `a non-negative integer`.
  public let requirement: String

  /// Creates the error.
  ///
  /// - Parameters:
  ///   - name: The query item's name.
  ///   - value: The rejected value.
  ///   - requirement: What the value must be.
  public init(name: String, value: String, requirement: String = "a non-negative integer") {
    self.name = name
    self.value = value
    self.requirement = requirement
  }

  /// A message for the HTTP 400 answer.
  public var description: String {
    "'\(self.name)' must be \(self.requirement), got '\(self.value)'"
  }
}
