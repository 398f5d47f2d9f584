/// The element that separates the parts of a combined request's `OperationPath`.
///
/// A combined request made of `StatefulOperationRequest`s is a `QueryRequest` whose path is
/// derived from its parts: the first part's path, then a marker, then the rest. So two equal
/// chains share one store, and a prefix search for the first part's path finds every chain that
/// starts with it:
///
/// ```swift
/// let chain = UserQuery(id: 1).then(FriendsQuery(userId: 1))
/// chain.path  // [<UserQuery's path…>, then, [<FriendsQuery's path…>]]
/// client.stores(matching: UserQuery(id: 1).path)  // the user's store and the chain's
/// ```
///
/// A combinator that takes a closure cannot compare closures, so its marker holds the place in
/// the source where the combinator was applied (and the combined request's type): the same chain
/// built at the same place shares a store, and two places make two stores.
public struct OperationChainPathMarker: Hashable, Sendable, CustomStringConvertible {
  /// The combinator that a marker stands for.
  public enum Kind: String, Hashable, Sendable {
    /// `then(_:)`.
    case then
    /// `then(always:)`.
    case thenAlways
    /// `map(_:)`.
    case map
    /// `flatMap(_:)`.
    case flatMap
    /// `mapResult(_:)`.
    case mapResult
    /// `mapError(_:)`.
    case mapError
    /// The `catch` combinators.
    case `catch`
    /// `combineAll(_:)`.
    case combineAll
    /// `group()`.
    case group
  }

  /// The combinator.
  public let kind: Kind

  /// The file where a closure-taking combinator was applied; `nil` for the others.
  public let fileID: String?

  /// The line where a closure-taking combinator was applied; `nil` for the others.
  public let line: UInt?

  /// The column where a closure-taking combinator was applied; `nil` for the others.
  public let column: UInt?

  // NB: Two chains built at one place in a generic function may have different types; the type
  // keeps them in different stores, where the client would otherwise report a duplicate path.
  private let combinedType: ObjectIdentifier?

  /// A marker for a combinator without a closure.
  init(_ kind: Kind) {
    self.kind = kind
    self.fileID = nil
    self.line = nil
    self.column = nil
    self.combinedType = nil
  }

  /// A marker for a closure-taking combinator, identified by where it was applied.
  init(
    _ kind: Kind,
    combinedType: Any.Type,
    fileID: StaticString,
    line: UInt,
    column: UInt
  ) {
    self.kind = kind
    self.fileID = fileID.description
    self.line = line
    self.column = column
    self.combinedType = ObjectIdentifier(combinedType)
  }

  /// A description such as `then` or `map@MyApp/Feed.swift:12:8`.
  public var description: String {
    guard let fileID = self.fileID, let line = self.line, let column = self.column else {
      return self.kind.rawValue
    }
    return "\(self.kind.rawValue)@\(fileID):\(line):\(column)"
  }
}

extension OperationPath {
  /// This path followed by a combinator's marker and, when given, the rest of the combined
  /// request's path as one element.
  func appendingChain(_ marker: OperationChainPathMarker, rest: OperationPath? = nil) -> Self {
    var path = self
    path.append(OperationPath.Element(marker))
    if let rest {
      path.append(OperationPath.Element(rest))
    }
    return path
  }
}
