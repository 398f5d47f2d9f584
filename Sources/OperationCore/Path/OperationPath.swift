/// An ordered list of hashable values that identifies an operation's store in an
/// ``OperationClient``.
///
/// Paths play the role of TanStack Query's query keys. Every ``StatefulOperationRequest`` has one:
/// a `Hashable & Sendable` request gets `[self]` by default, an `Identifiable` request gets
/// `[id]`, and a request that wants to be found by prefix spells its own:
///
/// ```swift
/// struct FriendsQuery: QueryRequest {
///   let userId: Int
///   var path: OperationPath { ["user-friends", self.userId] }
///   // ...
/// }
///
/// // Every friends list, whatever the user:
/// let stores = client.stores(matching: ["user-friends"])
/// ```
///
/// Two paths are equal when their elements are equal, in order. A single-element path is equal to,
/// and hashes like, the one-element array path, and `OperationPath()` is equal to `[]`.
///
/// Matching is by prefix only (``isPrefix(of:)``): there are no wildcards.
public struct OperationPath: Hashable, Sendable {
  private var storage: Storage

  /// Creates an empty path, which is a prefix of every path.
  public init() {
    self.storage = .empty
  }

  /// Creates a path from a sequence of hashable values.
  ///
  /// - Parameter elements: The values of the path, in order.
  public init(_ elements: some Sequence<any Hashable & Sendable>) {
    self.init(elements: elements.map(Element.init))
  }

  /// Creates a path from a sequence of elements.
  ///
  /// - Parameter elements: The elements of the path, in order.
  public init(elements: some Sequence<Element>) {
    self.storage = Storage(Array(elements))
  }

  /// Creates a path of one value.
  ///
  /// - Parameter element: The only value of the path.
  @_disfavoredOverload
  public init(_ element: some Hashable & Sendable) {
    self.storage = Storage(single: Element(element))
  }

  /// Creates a path of one element.
  ///
  /// - Parameter element: The only element of the path.
  public init(element: Element) {
    self.storage = Storage(single: element)
  }

  /// Whether this path is a prefix of `other`.
  ///
  /// The empty path is a prefix of every path, and every path is a prefix of itself.
  ///
  /// ```swift
  /// let path: OperationPath = ["user", 1]
  /// path.isPrefix(of: ["user", 1, "friends"])  // true
  /// path.isPrefix(of: ["user"])  // false
  /// ```
  ///
  /// - Parameter other: The path to compare against.
  /// - Returns: `true` when `other` starts with every element of this path, in order.
  /// - Complexity: O(*n*), where *n* is the length of this path.
  public func isPrefix(of other: Self) -> Bool {
    guard self.count <= other.count else { return false }
    for index in self.indices where self[index] != other[index] {
      return false
    }
    return true
  }

  /// Appends the elements of another path.
  ///
  /// - Parameter path: The path whose elements to append.
  public mutating func append(_ path: OperationPath) {
    self.append(contentsOf: path)
  }

  /// Appends a value.
  ///
  /// An array literal such as `path.append(["a", 1])` appends the elements of a path; pass an
  /// array variable to append the array itself as one element.
  ///
  /// - Parameter element: The value to append.
  @_disfavoredOverload
  public mutating func append(_ element: some Hashable & Sendable) {
    let element = element as? Element ?? Element(element)
    self.replaceSubrange(self.endIndex..<self.endIndex, with: CollectionOfOne(element))
  }

  /// Appends an element.
  ///
  /// - Parameter element: The element to append.
  public mutating func append(_ element: Element) {
    self.replaceSubrange(self.endIndex..<self.endIndex, with: CollectionOfOne(element))
  }

  /// Returns this path followed by the elements of another path.
  ///
  /// - Parameter path: The path whose elements follow.
  /// - Returns: The combined path.
  public func appending(_ path: OperationPath) -> Self {
    var copy = self
    copy.append(path)
    return copy
  }

  /// Returns this path followed by a value.
  ///
  /// - Parameter element: The value that follows.
  /// - Returns: The longer path.
  @_disfavoredOverload
  public func appending(_ element: some Hashable & Sendable) -> Self {
    var copy = self
    copy.append(element)
    return copy
  }

  /// Whether two paths have equal elements in the same order.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    switch (lhs.storage, rhs.storage) {
    case (.empty, .empty): true
    case (.single(let lhsHash, let lhs), .single(let rhsHash, let rhs)):
      lhsHash == rhsHash && lhs == rhs
    case (.array(let lhs, let lhsHash), .array(let rhs, let rhsHash)):
      lhsHash == rhsHash && lhs == rhs
    default: false
    }
  }

  /// Hashes the number of elements and each element in order (worked out once, when the path
  /// is made).
  public func hash(into hasher: inout Hasher) {
    switch self.storage {
    case .empty:
      hasher.combine(0)
    case .single(let hash, _), .array(_, let hash):
      hasher.combine(hash)
    }
  }
}

// MARK: - Element

extension OperationPath {
  /// One type-erased value of an ``OperationPath``.
  ///
  /// Elements compare and hash like `AnyHashable`: values of different types are equal only where
  /// `AnyHashable` makes them so, as it does for the same number in different integer types.
  public struct Element: Hashable, Sendable {
    private let value: Value

    /// Wraps a hashable value.
    ///
    /// - Parameter base: The value to wrap.
    public init(_ base: any Hashable & Sendable) {
      // NB: Comparing metatypes is cheap, where a failing dynamic cast is not.
      let type = Swift.type(of: base)
      if type == Int.self, let int = base as? Int {
        self.value = .int(int)
      } else if type == String.self, let string = base as? String {
        self.value = .string(string)
      } else {
        self.value = .other(AnyHashable(base))
      }
    }

    /// The wrapped value.
    public var base: any Hashable & Sendable {
      switch self.value {
      case .int(let int): return int
      case .string(let string): return string
      case .other(let hashable):
        // NB: `AnyHashable.base` is the value `init` received (integers keep their own type),
        // which is `Sendable`; `Sendable` is a marker protocol, so both existentials have the
        // same layout. The `as any Hashable` keeps `unsafeBitCast` from opening the existential.
        let base: any Hashable = hashable.base as? any Hashable ?? hashable
        return unsafeBitCast(base as any Hashable, to: (any Hashable & Sendable).self)
      }
    }

    /// Whether two elements wrap equal values of the same type.
    public static func == (lhs: Self, rhs: Self) -> Bool {
      switch (lhs.value, rhs.value) {
      case (.int(let lhs), .int(let rhs)): lhs == rhs
      case (.string(let lhs), .string(let rhs)): lhs == rhs
      case (.int, .string), (.string, .int): false
      default: lhs.value.anyHashable == rhs.value.anyHashable
      }
    }

    /// Hashes the wrapped value as `AnyHashable` does.
    public func hash(into hasher: inout Hasher) {
      switch self.value {
      case .int(let int):
        // NB: `AnyHashable` hashes every integer as its 64-bit pattern, so that equal numbers of
        // different integer types hash alike.
        hasher.combine(UInt64(truncatingIfNeeded: int))
      case .string(let string):
        hasher.combine(string)
      case .other(let hashable):
        hasher.combine(hashable)
      }
    }
  }
}

extension OperationPath.Element {
  // NB: Paths are hashed and compared on every store lookup, and making an `AnyHashable` from an
  // existential costs a dynamic cast, while hashing an integer `AnyHashable` converts it to a
  // canonical form each time. So the two most common kinds of elements, `Int` and `String`, are
  // kept as they are and compared directly; every other value is made into an `AnyHashable` once.
  // Equality and hashing stay those of `AnyHashable`: an `Int` element equals an `Int8` element of
  // the same number, and hashes like it.
  fileprivate enum Value {
    case int(Int)
    case string(String)
    case other(AnyHashable)

    var anyHashable: AnyHashable {
      switch self {
      case .int(let int): AnyHashable(int)
      case .string(let string): AnyHashable(string)
      case .other(let hashable): hashable
      }
    }
  }
}

// NB: `AnyHashable` is not `Sendable`, but the one in `.other` wraps a `Sendable` value and is
// never mutated, so sharing it across threads is safe.
extension OperationPath.Element.Value: @unchecked Sendable {}

extension OperationPath.Element: CustomStringConvertible {
  /// The wrapped value's description; strings are quoted.
  public var description: String {
    switch self.base {
    case let string as String: "\"\(string)\""
    case let substring as Substring: "\"\(substring)\""
    default: String(describing: self.base)
    }
  }
}

// MARK: - Storage

extension OperationPath {
  // NB: Most paths have one element (the default path of a `Hashable` request), so a single
  // element is stored inline instead of in an array. A path keeps the hash of its elements,
  // computed once, because a client hashes a path several times per store lookup and
  // `stores(matching:)` hashes the path of every match: hashing a path then costs one integer.
  // Comparing the hashes first also tells most different paths apart without comparing their
  // elements, which matters because a dictionary compares the key it looks for with every key
  // along its probe sequence.
  private enum Storage: Sendable {
    case empty
    // NB: The hash comes first, so that the element's enum tag does not pad the path to 64 bytes.
    case single(hash: Int, Element)
    case array([Element], hash: Int)

    init(single element: Element) {
      self = .single(hash: Self.hash(of: CollectionOfOne(element)), element)
    }

    init(_ elements: [Element]) {
      switch elements.count {
      case 0: self = .empty
      case 1: self = Storage(single: elements[0])
      default: self = .array(elements, hash: Self.hash(of: elements))
      }
    }

    private static func hash(of elements: some Collection<Element>) -> Int {
      var hasher = Hasher()
      hasher.combine(elements.count)
      for element in elements {
        hasher.combine(element)
      }
      return hasher.finalize()
    }

    var elements: [Element] {
      switch self {
      case .empty: []
      case .single(_, let element): [element]
      case .array(let elements, _): elements
      }
    }
  }
}

// MARK: - Collection

extension OperationPath: MutableCollection, RandomAccessCollection, RangeReplaceableCollection {
  /// A position in a path: the offset of an element from the first one.
  public typealias Index = Int

  /// The position of the first element, which is always 0.
  public var startIndex: Int { 0 }

  /// The position after the last element, which is the number of elements.
  public var endIndex: Int {
    switch self.storage {
    case .empty: 0
    case .single: 1
    case .array(let elements, _): elements.count
    }
  }

  /// The element at a position; traps when the position is out of range.
  public subscript(position: Int) -> Element {
    get {
      precondition(self.indices.contains(position), "OperationPath index out of range")
      return switch self.storage {
      case .empty: preconditionFailure("OperationPath index out of range")
      case .single(_, let element): element
      case .array(let elements, _): elements[position]
      }
    }
    set {
      precondition(self.indices.contains(position), "OperationPath index out of range")
      switch self.storage {
      case .empty:
        preconditionFailure("OperationPath index out of range")
      case .single:
        self.storage = Storage(single: newValue)
      case .array(var elements, _):
        self.storage = .empty
        elements[position] = newValue
        self.storage = Storage(elements)
      }
    }
  }

  /// Replaces a range of elements with other elements.
  ///
  /// - Parameters:
  ///   - subrange: The range to replace; traps when it is out of range.
  ///   - newElements: The elements to put in its place.
  public mutating func replaceSubrange(
    _ subrange: Range<Int>,
    with newElements: some Collection<Element>
  ) {
    precondition(
      subrange.lowerBound >= 0 && subrange.upperBound <= self.endIndex,
      "OperationPath index out of range"
    )
    var elements = self.storage.elements
    self.storage = .empty
    elements.replaceSubrange(subrange, with: newElements)
    self.storage = Storage(elements)
  }
}

// MARK: - Literals and description

extension OperationPath: ExpressibleByArrayLiteral {
  /// Creates a path from an array literal of hashable values, such as `["user", 1]`.
  ///
  /// - Parameter elements: The values of the path, in order.
  public init(arrayLiteral elements: (any Hashable & Sendable)...) {
    self.init(elements)
  }
}

extension OperationPath: CustomStringConvertible {
  /// A description such as `OperationPath(["user", 1])`.
  public var description: String {
    "OperationPath([\(self.map(\.description).joined(separator: ", "))])"
  }
}
