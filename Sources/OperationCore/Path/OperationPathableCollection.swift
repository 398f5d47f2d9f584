/// An unordered collection of values keyed by their ``OperationPath``, with a prefix index.
///
/// ``OperationClient`` keeps its stores in one. Looking up a path is a hash lookup, and
/// ``collection(matching:)`` costs in proportion to the number of values it returns (plus the
/// length of the prefix), not to the size of the collection: the paths are indexed in a trie. A
/// collection that ``collection(matching:)`` returns finds a path in that trie, in proportion to
/// the path's length, until it is changed.
///
/// Its indices are positions in a dense array of the values, in no particular order; removing a
/// value moves the last one into its place.
///
/// ```swift
/// var stores = client.stores(matching: ["user"])
/// stores.removeAll(matching: ["user", 1])
/// ```
public struct OperationPathableCollection<Element: OperationPathable> {
  // NB: The values are kept in a dense array, whose positions are the indices of the collection,
  // and `positions` finds a value's position by its exact path. The trie indexes the paths of two
  // elements or more only. Paths of one element (the default path of a `Hashable` request, so
  // most paths) and the empty path are found by their exact path, which is all a prefix of one
  // element needs besides the trie: this spares most values a node of their own.
  //
  // A collection made by `collection(matching:)` shares a subtree of the trie it was made from
  // and has no `positions` (`nil`) until it is changed: it finds a path in its trie, or, for a
  // path of one element, in its last value (see `collection(matching:)`). So making one costs a
  // walk of the subtree, not a hash insertion per match.
  private var values = ContiguousArray<Element>()
  private var positions: [OperationPath: Int]? = [:]
  private var trie = PathTrie<Element>()

  /// Creates an empty collection.
  public init() {}

  /// Creates a collection from a sequence; of two values with the same path, the last one wins.
  ///
  /// - Parameter sequence: The values to add.
  public init(_ sequence: some Sequence<Element>) {
    for element in sequence {
      self.update(element)
    }
  }

  /// The value at a path, if any; setting `nil` removes it.
  ///
  /// Setting a value whose own ``OperationPathable/path`` differs from `path` stores it under its
  /// own path.
  public subscript(path: OperationPath) -> Element? {
    get {
      if let positions = self.positions {
        return positions[path].map { self.values[$0] }
      }
      switch path.count {
      case 0:
        return nil
      case 1:
        // NB: A collection made by `collection(matching:)` holds at most one path of one element,
        // the prefix it was made with, and keeps that value last.
        guard let last = self.values.last, last.path == path else { return nil }
        return last
      default:
        return self.trie.subtree(at: path, from: 0)?.element
      }
    }
    set {
      if let newValue {
        self.update(newValue)
      } else {
        self.removeValue(forPath: path)
      }
    }
  }

  /// Every path in the collection.
  ///
  /// - Complexity: O(*n*).
  public var paths: Set<OperationPath> {
    Set(self.values.lazy.map(\.path))
  }

  /// Inserts a value, or replaces the one with the same path.
  ///
  /// It returns nothing, as upstream's does, so a closure made of one call to it, such as
  /// `client.withStores(matching: path) { stores, _ in stores.update(store) }`, returns `Void`.
  /// To keep the value it replaces, read `collection[element.path]` first.
  ///
  /// - Parameter element: The value to insert.
  public mutating func update(_ element: Element) {
    let path = element.path
    self.makePositions()
    if path.count > 1 {
      self.trie.insert(element, at: path, from: 0)
    }
    if let position = self.positions?[path] {
      self.values[position] = element
      return
    }
    self.positions?[path] = self.values.count
    self.values.append(element)
  }

  /// Removes the value at a path.
  ///
  /// - Parameter path: The exact path of the value to remove.
  /// - Returns: The removed value, if any.
  @discardableResult
  public mutating func removeValue(forPath path: OperationPath) -> Element? {
    self.makePositions()
    guard let removed = self.removeFromValues(path) else { return nil }
    if path.count > 1 {
      self.trie.remove(at: path, from: 0)
    }
    return removed
  }

  /// Removes every value.
  ///
  /// - Parameter keepCapacity: Whether to keep the storage allocated.
  public mutating func removeAll(keepingCapacity keepCapacity: Bool = false) {
    self.values.removeAll(keepingCapacity: keepCapacity)
    self.positions?.removeAll(keepingCapacity: keepCapacity)
    if self.positions == nil {
      self.positions = [:]
    }
    self.trie = PathTrie()
  }

  /// Removes every value whose path starts with `path`.
  ///
  /// - Parameter path: The prefix; the empty path removes everything.
  /// - Complexity: O(*m*), where *m* is the number of values removed.
  public mutating func removeAll(matching path: OperationPath) {
    guard !path.isEmpty else {
      self.removeAll()
      return
    }
    self.makePositions()
    var removed = [Element]()
    self.trie.removeSubtree(at: path, from: 0, into: &removed)
    for element in removed {
      self.removeFromValues(element.path)
    }
    if path.count == 1 {
      self.removeFromValues(path)
    }
  }

  /// Removes every value that satisfies a predicate.
  ///
  /// - Parameter shouldBeRemoved: Returns `true` for the values to remove.
  /// - Complexity: O(*n*).
  public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
    for element in self.values where try shouldBeRemoved(element) {
      self.removeValue(forPath: element.path)
    }
  }

  /// Removes the value at an index.
  ///
  /// The value that was last takes its place, so indices of the collection are not valid after.
  ///
  /// - Parameter index: A valid index of the collection.
  /// - Returns: The removed value.
  @discardableResult
  public mutating func remove(at index: Index) -> Element {
    let element = self.values[index.base]
    self.removeValue(forPath: element.path)
    return element
  }

  /// Reserves room for at least `minimumCapacity` values.
  ///
  /// - Parameter minimumCapacity: The number of values to make room for.
  public mutating func reserveCapacity(_ minimumCapacity: Int) {
    self.makePositions()
    self.values.reserveCapacity(minimumCapacity)
    self.positions?.reserveCapacity(minimumCapacity)
  }

  /// The values whose paths start with `path`.
  ///
  /// - Parameter path: The prefix; the empty path returns the whole collection.
  /// - Returns: A new collection of the matching values.
  /// - Complexity: O(*m* + *k*), where *m* is the number of matches and *k* the length of `path`.
  public func collection(matching path: OperationPath) -> Self {
    guard !path.isEmpty else { return self }
    let subtree = self.trie.subtree(at: path, from: 0)
    let exact = path.count == 1 ? self[path] : nil
    guard subtree != nil || exact != nil else { return Self() }
    // NB: The matches share the subtree of the index (a copy-on-write value) instead of being
    // inserted into a new one, which would hash every element of every path again; the value at
    // `path` itself, when `path` has one element, comes last (see the subscript).
    var matches = Self()
    matches.positions = nil
    subtree?.forEach { matches.values.append($0) }
    if let exact {
      matches.values.append(exact)
    }
    if let subtree {
      matches.trie = PathTrie(subtree, at: path)
    }
    return matches
  }

  /// Indexes the values by path, for a collection made by `collection(matching:)` that is about
  /// to change.
  private mutating func makePositions() {
    guard self.positions == nil else { return }
    var positions = [OperationPath: Int](minimumCapacity: self.values.count)
    for (position, element) in self.values.enumerated() {
      positions[element.path] = position
    }
    self.positions = positions
  }

  /// Removes the value at `path` from `values` and `positions`, moving the last value into its
  /// place; the trie is left to the caller.
  @discardableResult
  private mutating func removeFromValues(_ path: OperationPath) -> Element? {
    guard let position = self.positions?.removeValue(forKey: path) else { return nil }
    let removed = self.values[position]
    let last = self.values.removeLast()
    if position < self.values.endIndex {
      self.values[position] = last
      self.positions?[last.path] = position
    }
    return removed
  }
}

// MARK: - Collection

extension OperationPathableCollection: RandomAccessCollection {
  /// A position in an ``OperationPathableCollection``.
  public struct Index: Hashable, Comparable {
    fileprivate let base: Int

    /// Whether the first position comes before the second.
    public static func < (lhs: Self, rhs: Self) -> Bool {
      lhs.base < rhs.base
    }
  }

  /// The position of the first value.
  public var startIndex: Index { Index(base: 0) }
  /// The position after the last value.
  public var endIndex: Index { Index(base: self.values.endIndex) }
  /// The number of values.
  public var count: Int { self.values.count }
  /// Whether the collection holds no value.
  public var isEmpty: Bool { self.values.isEmpty }

  /// The position after a given one.
  ///
  /// - Parameter i: A valid position that is not ``endIndex``.
  /// - Returns: The next position.
  public func index(after i: Index) -> Index {
    Index(base: i.base + 1)
  }

  /// The position before a given one.
  ///
  /// - Parameter i: A valid position that is not ``startIndex``.
  /// - Returns: The previous position.
  public func index(before i: Index) -> Index {
    Index(base: i.base - 1)
  }

  /// The position a given distance from another.
  ///
  /// - Parameters:
  ///   - i: A valid position.
  ///   - distance: How many positions to move; negative moves back.
  /// - Returns: The position.
  public func index(_ i: Index, offsetBy distance: Int) -> Index {
    Index(base: i.base + distance)
  }

  /// The number of positions from one to another.
  ///
  /// - Parameters:
  ///   - start: A valid position.
  ///   - end: A valid position.
  /// - Returns: The distance; negative when `end` comes first.
  public func distance(from start: Index, to end: Index) -> Int {
    end.base - start.base
  }

  /// The value at a position.
  public subscript(position: Index) -> Element {
    self.values[position.base]
  }
}

extension OperationPathableCollection: ExpressibleByArrayLiteral {
  /// Creates a collection from an array literal; of two values with the same path, the last one
  /// wins.
  ///
  /// - Parameter elements: The values to add.
  public init(arrayLiteral elements: Element...) {
    self.init(elements)
  }
}

extension OperationPathableCollection: Equatable where Element: Equatable {
  /// Whether two collections hold equal values at the same paths, in any order.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.count == rhs.count && lhs.values.allSatisfy { rhs[$0.path] == $0 }
  }
}

extension OperationPathableCollection: Hashable where Element: Hashable {
  /// Hashes the paths and values of the collection, whatever their order.
  public func hash(into hasher: inout Hasher) {
    // NB: Equal collections may hold their values in different orders, so the values' hashes are
    // combined with an operation that ignores order.
    var combined = 0
    for element in self.values {
      var elementHasher = Hasher()
      elementHasher.combine(element.path)
      elementHasher.combine(element)
      combined ^= elementHasher.finalize()
    }
    hasher.combine(self.count)
    hasher.combine(combined)
  }
}

extension OperationPathableCollection: Sendable where Element: Sendable {}
extension OperationPathableCollection.Index: Sendable where Element: Sendable {}
extension PathTrie: Sendable where Element: Sendable {}

// MARK: - PathTrie

/// A prefix tree of paths, one node per path element.
private struct PathTrie<Element> {
  var element: Element?
  var children = [OperationPath.Element: PathTrie]()

  var isEmpty: Bool { self.element == nil && self.children.isEmpty }

  mutating func insert(_ element: Element, at path: OperationPath, from index: Int) {
    if index == path.endIndex {
      self.element = element
    } else {
      self.children[path[index], default: PathTrie()]
        .insert(element, at: path, from: index + 1)
    }
  }

  mutating func remove(at path: OperationPath, from index: Int) {
    if index == path.endIndex {
      self.element = nil
      return
    }
    let key = path[index]
    guard self.children[key] != nil else { return }
    self.children[key]!.remove(at: path, from: index + 1)
    if self.children[key]!.isEmpty {
      self.children[key] = nil
    }
  }

  mutating func removeSubtree(
    at path: OperationPath,
    from index: Int,
    into removed: inout [Element]
  ) {
    if index == path.endIndex {
      self.collect(into: &removed)
      self = PathTrie()
      return
    }
    let key = path[index]
    guard self.children[key] != nil else { return }
    self.children[key]!.removeSubtree(at: path, from: index + 1, into: &removed)
    if self.children[key]!.isEmpty {
      self.children[key] = nil
    }
  }

  init() {}

  /// A trie that holds `subtree` at `path`, and nothing else.
  init(_ subtree: PathTrie, at path: OperationPath) {
    var node = subtree
    for element in path.reversed() {
      var parent = PathTrie()
      parent.children[element] = node
      node = parent
    }
    self = node
  }

  /// The node at `path`, if there is one.
  func subtree(at path: OperationPath, from index: Int) -> PathTrie? {
    var node = self
    for element in path[index...] {
      guard let child = node.children[element] else { return nil }
      node = child
    }
    return node
  }

  func forEach(_ body: (Element) -> Void) {
    if let element {
      body(element)
    }
    for child in self.children.values {
      child.forEach(body)
    }
  }

  private func collect(into elements: inout [Element]) {
    self.forEach { elements.append($0) }
  }
}
