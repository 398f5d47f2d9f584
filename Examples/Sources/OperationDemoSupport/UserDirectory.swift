/// A user as the demo server sends it, in the shape of dummyjson.com's users (a few of its fields).
public struct CatalogUser: Codable, Hashable, Sendable {
  /// The user's identifier, from 1.
  public var id: Int
  /// The first name.
  public var firstName: String
  /// The last name.
  public var lastName: String

  /// Creates a user.
  public init(id: Int, firstName: String, lastName: String) {
    self.id = id
    self.firstName = firstName
    self.lastName = lastName
  }
}

/// A list of users, `{users, total, skip, limit}`, as `GET /users?ids=` answers.
public struct CatalogUserList: Codable, Hashable, Sendable {
  /// The users found, in the order their ids were asked for.
  public var users: [CatalogUser]
  /// The number of users in the list.
  public var total: Int
  /// Always 0: the list is not paginated.
  public var skip: Int
  /// The number of users in the list.
  public var limit: Int

  /// Creates a list.
  ///
  /// - Parameter users: The users.
  public init(users: [CatalogUser]) {
    self.users = users
    self.total = users.count
    self.skip = 0
    self.limit = users.count
  }
}

/// The users the demo server serves, generated the same way on every run: the circuit-breaker
/// step reads one by id (`GET /users/{id}`), the batch step many at once (`GET /users?ids=1,2,3`).
///
/// ```swift
/// let directory = UserDirectory(count: 100)
/// directory.user(id: 7)?.firstName  // the same name on every run
/// directory.users(ids: [3, 9999, 1]).map(\.id)  // [3, 1]: an unknown id is left out
/// ```
public struct UserDirectory: Hashable, Sendable {
  /// The users, with identifiers `1...count`.
  public let users: [CatalogUser]

  /// Creates a directory.
  ///
  /// - Parameter count: The number of users; negative values count as zero.
  public init(count: Int = 100) {
    self.users = (0..<max(count, 0)).map(Self.user(at:))
  }

  /// The user with an identifier, or `nil` when there is none (the server answers 404).
  public func user(id: Int) -> CatalogUser? {
    self.users.indices.contains(id - 1) ? self.users[id - 1] : nil
  }

  /// The users with some identifiers, in the order asked, each once; unknown identifiers are left
  /// out, as a batch endpoint leaves out what it does not have.
  public func users(ids: [Int]) -> [CatalogUser] {
    var seen = Set<Int>()
    return ids.compactMap { id in
      guard seen.insert(id).inserted else { return nil }
      return self.user(id: id)
    }
  }

  private static let firstNames = [
    "Ada", "Grace", "Alan", "Barbara", "Edsger", "Frances", "Donald", "Margaret", "Niklaus",
    "Radia", "Ken", "Shafi", "Tony", "Leslie", "John", "Adele",
  ]
  private static let lastNames = [
    "Lovelace", "Hopper", "Turing", "Liskov", "Dijkstra", "Allen", "Knuth", "Hamilton", "Wirth",
    "Perlman", "Thompson", "Goldwasser", "Hoare", "Lamport", "Backus", "Goldberg", "Kay",
  ]

  private static func user(at index: Int) -> CatalogUser {
    CatalogUser(
      id: index + 1,
      firstName: Self.firstNames[index % Self.firstNames.count],
      // NB: The last name moves on by one more every round of first names, so that no two of
      // the first 16 × 17 users share both names.
      lastName: Self.lastNames[
        (index + 2 * (index / Self.firstNames.count)) % Self.lastNames.count
      ]
    )
  }
}

/// The `ids` parameter of `GET /users?ids=1,2,3`: decimal identifiers separated by commas.
public enum UserIDList {
  /// The most ids one request may ask for.
  public static let maxCount = 1_000

  /// The parameter's text for some identifiers, such as `1,2,3`.
  public static func text(_ ids: [Int]) -> String {
    ids.map(String.init).joined(separator: ",")
  }

  /// The parameter's text cut short for a line of output, such as `1,2,3,4,5,… (100 ids)`.
  ///
  /// - Parameters:
  ///   - ids: The identifiers.
  ///   - shown: The most identifiers written out.
  /// - Returns: The text; the whole list when it has at most `shown` identifiers.
  public static func summary(_ ids: [Int], showing shown: Int = 5) -> String {
    guard ids.count > shown else { return Self.text(ids) }
    return Self.text(Array(ids.prefix(shown))) + ",… (\(ids.count) ids)"
  }

  /// The identifiers of a parameter, in order, repeats included.
  ///
  /// - Parameter raw: The parameter's text, or `nil` when the request has none.
  /// - Returns: The identifiers.
  /// - Throws: ``UserIDListError`` for a missing or empty parameter, a part that is not a decimal
  ///   number, or more than ``maxCount`` ids (the server answers 400).
  public static func parse(_ raw: String?) throws(UserIDListError) -> [Int] {
    guard let raw, !raw.isEmpty else { throw .missing }
    let parts = raw.split(separator: ",", omittingEmptySubsequences: false)
    guard parts.count <= Self.maxCount else { throw .tooMany(parts.count) }
    return try parts.map { part throws(UserIDListError) -> Int in
      guard !part.isEmpty, part.allSatisfy({ ("0"..."9").contains($0) }), let id = Int(part) else {
        throw .invalid(String(part))
      }
      return id
    }
  }
}

/// A bad `ids` parameter.
public enum UserIDListError: Error, Hashable, Sendable, CustomStringConvertible {
  /// No ids were given.
  case missing
  /// A part is not a decimal number.
  case invalid(String)
  /// More ids than ``UserIDList/maxCount``.
  case tooMany(Int)

  /// The message of the server's 400 answer.
  public var description: String {
    switch self {
    case .missing: "The ids parameter is missing: GET /users?ids=1,2,3"
    case .invalid(let part): "Invalid user id '\(part)' in the ids parameter"
    case .tooMany(let count): "\(count) ids asked for, at most \(UserIDList.maxCount)"
    }
  }
}
