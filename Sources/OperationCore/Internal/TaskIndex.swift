/// The ids of operation tasks kept in an array of their owner's, in the order in which they were
/// added, where adding, finding and removing one costs O(1) (amortized) however many there are.
///
/// A store files every run in flight in such an array, and a query state every fetch. A few at a
/// time is the common case, which plain arrays serve best: up to ``indexThreshold`` entries, the
/// index is an array of ids that it searches, and a removal removes the element from the owner's
/// array. Past that, for example with thousands of callers of one deduplicated fetch, removing
/// from the middle of an array (which moves every entry after it) would make finishing or
/// cancelling N runs cost O(N²), so the index also keeps the position of each id in a dictionary,
/// and a removed entry leaves a hole (the owner keeps the removed element) that is squeezed out
/// once the holes outnumber the entries. The owner never keeps more than twice as many elements
/// as it has entries, plus ``indexThreshold``.
///
/// The index is not generic, and the owner's array is a plain `ContiguousArray` of its own
/// element type, edited through ``ContiguousArray/apply(_:)``: a store runs in unspecialized
/// generic code, where every generic type that it touches costs a metadata lookup per use, and a
/// generic table type cost each fetch about 2,500 instructions (a fetch is about 54,000).
@usableFromInline
struct TaskIndex: Sendable {
  /// The number of entries up to which the index does without its dictionary.
  static var indexThreshold: Int { 16 }

  /// The id of each element of the owner's array, or `nil` for a hole.
  private var ids = ContiguousArray<OperationTaskIdentifier?>()

  /// The index of each entry's id in ``ids``, once the index has grown past ``indexThreshold``.
  private var positions: [OperationTaskIdentifier: Int]?

  /// The number of entries.
  private(set) var count = 0

  /// Creates an empty index.
  init() {}

  /// Whether the index has no entries.
  var isEmpty: Bool { self.count == 0 }

  /// Whether the owner's array has holes, which ``isEntry(at:)`` tells apart.
  var hasHoles: Bool { self.count != self.ids.count }

  /// Whether an entry has this id.
  ///
  /// - Parameter id: The id.
  func contains(_ id: OperationTaskIdentifier) -> Bool {
    self.index(of: id) != nil
  }

  /// Whether the element at an index of the owner's array is an entry, not a hole.
  ///
  /// - Parameter index: The index.
  func isEntry(at index: Int) -> Bool {
    self.ids[index] != nil
  }

  private func index(of id: OperationTaskIdentifier) -> Int? {
    if let positions = self.positions {
      return positions[id]
    }
    return self.ids.firstIndex(of: id)
  }

  /// Adds an id, unless an entry has it already; the owner then appends its element.
  ///
  /// - Parameter id: The id.
  /// - Returns: Whether the id was added.
  @usableFromInline
  mutating func append(_ id: OperationTaskIdentifier) -> Bool {
    guard !self.contains(id) else { return false }
    self.ids.append(id)
    self.count += 1
    if self.positions != nil {
      self.positions?[id] = self.ids.endIndex - 1
    } else if self.ids.count > Self.indexThreshold {
      self.indexPositions()
    }
    return true
  }

  /// What the owner does to its array after a removal.
  @usableFromInline
  enum Removal {
    /// Nothing: no entry had the id.
    case none
    /// Remove the element at this index.
    case remove(at: Int)
    /// Keep the first `count` elements, then, when `squeezing` is not `nil`, keep only the
    /// elements at those indices, in order.
    case trim(keeping: Int, squeezing: [Int]?)
  }

  /// Removes the entry with an id.
  ///
  /// - Parameter id: The id.
  /// - Returns: What the owner does to its array.
  @usableFromInline
  mutating func remove(_ id: OperationTaskIdentifier) -> Removal {
    guard let index = self.index(of: id) else { return .none }
    self.count -= 1
    guard self.positions != nil else {
      self.ids.remove(at: index)
      return .remove(at: index)
    }
    self.positions?[id] = nil
    self.ids[index] = nil
    if self.count == 0 {
      self.removeAll()
      return .trim(keeping: 0, squeezing: nil)
    }
    // NB: Trailing holes go at once, so that entries that leave last in, first out never squeeze.
    while let last = self.ids.last, last == nil {
      self.ids.removeLast()
    }
    let kept = self.ids.count
    guard kept - self.count > self.count else { return .trim(keeping: kept, squeezing: nil) }
    return .trim(keeping: kept, squeezing: self.squeeze())
  }

  /// Removes every entry; the owner empties its array.
  mutating func removeAll() {
    self.ids.removeAll(keepingCapacity: true)
    self.positions = nil
    self.count = 0
  }

  /// Drops the holes, and returns the indices of the entries in the array before.
  ///
  /// - Complexity: O(*h* + *n*) for *h* holes and *n* entries; called only when *h* > *n*, after
  ///   *h* removals since the last squeeze, so O(1) amortized per removal.
  private mutating func squeeze() -> [Int] {
    var kept = [Int]()
    var ids = ContiguousArray<OperationTaskIdentifier?>()
    kept.reserveCapacity(self.count)
    ids.reserveCapacity(self.count)
    for index in self.ids.indices where self.ids[index] != nil {
      kept.append(index)
      ids.append(self.ids[index])
    }
    self.ids = ids
    if ids.count > Self.indexThreshold {
      self.indexPositions()
    } else {
      self.positions = nil
    }
    return kept
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

extension ContiguousArray {
  /// Edits an array that a ``TaskIndex`` indexes after a removal from the index.
  ///
  /// - Parameter removal: What the index returned.
  @inlinable
  mutating func apply(_ removal: TaskIndex.Removal) {
    switch removal {
    case .none:
      break
    case .remove(let index):
      self.remove(at: index)
    case .trim(let keeping, let squeezing):
      if keeping == 0 {
        self.removeAll(keepingCapacity: true)
        return
      }
      self.removeLast(self.count - keeping)
      if let squeezing {
        var kept = ContiguousArray()
        kept.reserveCapacity(squeezing.count)
        for index in squeezing {
          kept.append(self[index])
        }
        self = kept
      }
    }
  }

  /// The elements that are entries of an index, in order.
  ///
  /// - Parameter index: The array's index.
  func entries(of index: TaskIndex) -> ContiguousArray {
    guard index.hasHoles else { return self }
    var entries = ContiguousArray()
    entries.reserveCapacity(index.count)
    for position in self.indices where index.isEntry(at: position) {
      entries.append(self[position])
    }
    return entries
  }
}
