/// Values filed under the ids of operation tasks, in the order in which they were added, where
/// adding, finding and removing one costs O(1) (amortized) however many there are.
///
/// A store files every run in flight here, and a query state every fetch. A few at a time is the
/// common case, which plain arrays serve best: up to ``indexThreshold`` entries, the table is two
/// arrays that it searches and edits in place. Past that, for example with thousands of callers
/// of one deduplicated fetch, removing from the middle of an array (which moves every entry after
/// it) would make finishing or cancelling N runs cost O(N²), so the table also keeps the position
/// of each id in a dictionary, and a removed entry leaves a hole that is squeezed out once the
/// holes outnumber the entries.
///
/// `Element` is stored apart from the ids, in an array of its own, so that a store's unspecialized
/// generic code touches one generic array and otherwise works on concrete types. A removed
/// element stays in that array until the next squeeze or until the table empties; the table never
/// holds more than twice as many elements as it has entries, plus ``indexThreshold``.
struct TaskTable<Element> {
  /// The number of entries up to which the table does without its dictionary.
  static var indexThreshold: Int { 16 }

  /// The elements, holes included (a hole's element is the one that was removed).
  private var storage = ContiguousArray<Element>()

  /// The id of each element of ``storage``, or `nil` for a hole.
  private var ids = ContiguousArray<OperationTaskIdentifier?>()

  /// The index of each entry's id in ``ids``, once the table has grown past ``indexThreshold``.
  private var positions: [OperationTaskIdentifier: Int]?

  /// The number of entries.
  private(set) var count = 0

  /// Creates an empty table.
  init() {}

  /// Whether the table has no entries.
  var isEmpty: Bool { self.count == 0 }

  /// Whether an entry has this id.
  ///
  /// - Parameter id: The id.
  func contains(_ id: OperationTaskIdentifier) -> Bool {
    self.index(of: id) != nil
  }

  /// The entries' elements, in the order in which they were added.
  var elements: ContiguousArray<Element> {
    guard self.count != self.ids.count else { return self.storage }
    var elements = ContiguousArray<Element>()
    elements.reserveCapacity(self.count)
    for index in self.ids.indices where self.ids[index] != nil {
      elements.append(self.storage[index])
    }
    return elements
  }

  private func index(of id: OperationTaskIdentifier) -> Int? {
    if let positions = self.positions {
      return positions[id]
    }
    return self.ids.firstIndex(of: id)
  }

  /// Adds an element under an id, unless an entry has the id already.
  ///
  /// - Parameters:
  ///   - element: The element.
  ///   - id: Its id.
  /// - Returns: Whether the element was added.
  @discardableResult
  mutating func append(_ element: Element, id: OperationTaskIdentifier) -> Bool {
    guard !self.contains(id) else { return false }
    self.storage.append(element)
    self.ids.append(id)
    self.count += 1
    if self.positions != nil {
      self.positions?[id] = self.ids.endIndex - 1
    } else if self.ids.count > Self.indexThreshold {
      self.indexPositions()
    }
    return true
  }

  /// Removes the entry with an id.
  ///
  /// - Parameter id: The id.
  /// - Returns: Whether an entry had the id.
  @discardableResult
  mutating func remove(_ id: OperationTaskIdentifier) -> Bool {
    guard let index = self.index(of: id) else { return false }
    self.count -= 1
    guard self.positions != nil else {
      self.storage.remove(at: index)
      self.ids.remove(at: index)
      return true
    }
    self.positions?[id] = nil
    self.ids[index] = nil
    if self.count == 0 {
      self.removeAll()
      return true
    }
    // NB: Trailing holes go at once, so that entries that leave last in, first out never squeeze.
    while let last = self.ids.last, last == nil {
      self.ids.removeLast()
      self.storage.removeLast()
    }
    if self.ids.count - self.count > self.count {
      self.squeeze()
    }
    return true
  }

  /// Removes every entry, keeping the arrays' capacity.
  mutating func removeAll() {
    self.storage.removeAll(keepingCapacity: true)
    self.ids.removeAll(keepingCapacity: true)
    self.positions = nil
    self.count = 0
  }

  /// Drops the holes.
  ///
  /// - Complexity: O(*h* + *n*) for *h* holes and *n* entries; called only when *h* > *n*, after
  ///   *h* removals since the last squeeze, so O(1) amortized per removal.
  private mutating func squeeze() {
    var storage = ContiguousArray<Element>()
    var ids = ContiguousArray<OperationTaskIdentifier?>()
    storage.reserveCapacity(self.count)
    ids.reserveCapacity(self.count)
    for index in self.ids.indices where self.ids[index] != nil {
      storage.append(self.storage[index])
      ids.append(self.ids[index])
    }
    self.storage = storage
    self.ids = ids
    if ids.count > Self.indexThreshold {
      self.indexPositions()
    } else {
      self.positions = nil
    }
  }

  private mutating func indexPositions() {
    var positions = [OperationTaskIdentifier: Int](minimumCapacity: self.ids.count * 2)
    for (index, id) in self.ids.enumerated() {
      if let id {
        positions[id] = index
      }
    }
    self.positions = positions
  }
}

extension TaskTable: Sendable where Element: Sendable {}
