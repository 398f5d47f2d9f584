/// An unordered collection of values keyed by their ``OperationPath``, with a prefix index.
///
/// ``OperationClient`` keeps its stores in one. Looking up a path is a hash lookup, and
/// ``collection(matching:)`` costs in proportion to the number of values it returns (plus the
/// length of the prefix), not to the size of the collection: the paths are indexed in a trie.
///
/// ```swift
/// var stores = client.stores(matching: ["user"])
/// stores.removeAll(matching: ["user", 1])
/// ```
public struct OperationPathableCollection<Element: OperationPathable> {
  private var elements = [OperationPath: Element]()
  // NB: The trie indexes the paths of two elements or more only. Paths of one element (the
  // default path of a `Hashable` request, so most paths) and the empty path are found in
  // `elements` by their exact path, which is all a prefix of one element needs besides the trie:
  // this spares most values a node of their own.
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
    get { self.elements[path] }
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
    Set(self.elements.keys)
  }

  /// Inserts a value, or replaces the one with the same path.
  ///
  /// - Parameter element: The value to insert.
  /// - Returns: The value that was replaced, if any.
  @discardableResult
  public mutating func update(_ element: Element) -> Element? {
    let path = element.path
    if path.count > 1 {
      self.trie.insert(element, at: path, from: 0)
    }
    return self.elements.updateValue(element, forKey: path)
  }

  /// Removes the value at a path.
  ///
  /// - Parameter path: The exact path of the value to remove.
  /// - Returns: The removed value, if any.
  @discardableResult
  public mutating func removeValue(forPath path: OperationPath) -> Element? {
    guard let removed = self.elements.removeValue(forKey: path) else { return nil }
    if path.count > 1 {
      self.trie.remove(at: path, from: 0)
    }
    return removed
  }

  /// Removes every value.
  ///
  /// - Parameter keepCapacity: Whether to keep the storage allocated.
  public mutating func removeAll(keepingCapacity keepCapacity: Bool = false) {
    self.elements.removeAll(keepingCapacity: keepCapacity)
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
    var removed = [Element]()
    self.trie.removeSubtree(at: path, from: 0, into: &removed)
    for element in removed {
      self.elements.removeValue(forKey: element.path)
    }
    if path.count == 1 {
      self.elements.removeValue(forKey: path)
    }
  }

  /// Removes every value that satisfies a predicate.
  ///
  /// - Parameter shouldBeRemoved: Returns `true` for the values to remove.
  /// - Complexity: O(*n*).
  public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
    for (path, element) in self.elements where try shouldBeRemoved(element) {
      self.removeValue(forPath: path)
    }
  }

  /// Removes the value at an index.
  ///
  /// - Parameter index: A valid index of the collection.
  /// - Returns: The removed value.
  @discardableResult
  public mutating func remove(at index: Index) -> Element {
    let (path, element) = self.elements[index.base]
    self.removeValue(forPath: path)
    return element
  }

  /// Reserves room for at least `minimumCapacity` values.
  ///
  /// - Parameter minimumCapacity: The number of values to make room for.
  public mutating func reserveCapacity(_ minimumCapacity: Int) {
    self.elements.reserveCapacity(minimumCapacity)
  }

  /// The values whose paths start with `path`.
  ///
  /// - Parameter path: The prefix; the empty path returns the whole collection.
  /// - Returns: A new collection of the matching values.
  /// - Complexity: O(*m* + *k*), where *m* is the number of matches and *k* the length of `path`.
  public func collection(matching path: OperationPath) -> Self {
    guard !path.isEmpty else { return self }
    let subtree = self.trie.subtree(at: path, from: 0)
    let exact = path.count == 1 ? self.elements[path] : nil
    guard subtree != nil || exact != nil else { return Self() }
    // NB: The matches share the subtree of the index (a copy-on-write value) instead of being
    // inserted into a new one, which would hash every element of every path again.
    var found = [Element]()
    subtree?.forEach { found.append($0) }
    if let exact {
      found.append(exact)
    }
    var matches = Self()
    matches.elements.reserveCapacity(found.count)
    for element in found {
      matches.elements[element.path] = element
    }
    if let subtree {
      matches.trie = PathTrie(subtree, at: path)
    }
    return matches
  }
}

// MARK: - Collection

extension OperationPathableCollection: Collection {
  /// A position in an ``OperationPathableCollection``.
  public struct Index: Hashable, Comparable {
    fileprivate let base: Dictionary<OperationPath, Element>.Index

    /// Whether the first position comes before the second.
    public static func < (lhs: Self, rhs: Self) -> Bool {
      lhs.base < rhs.base
    }
  }

  /// The position of the first value.
  public var startIndex: Index { Index(base: self.elements.startIndex) }
  /// The position after the last value.
  public var endIndex: Index { Index(base: self.elements.endIndex) }
  /// The number of values.
  public var count: Int { self.elements.count }
  /// Whether the collection holds no value.
  public var isEmpty: Bool { self.elements.isEmpty }

  /// The position after a given one.
  ///
  /// - Parameter i: A valid position that is not ``endIndex``.
  /// - Returns: The next position.
  public func index(after i: Index) -> Index {
    Index(base: self.elements.index(after: i.base))
  }

  /// The value at a position.
  public subscript(position: Index) -> Element {
    self.elements[position.base].value
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
  /// Whether two collections hold equal values at the same paths.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.elements == rhs.elements
  }
}

extension OperationPathableCollection: Hashable where Element: Hashable {
  /// Hashes the paths and values of the collection.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(self.elements)
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
