/// Keys in the order they were last used, with constant-time use, removal and access to the least
/// recently used key.
///
/// A doubly linked list whose nodes live in an array (freed slots are reused) and are found by a
/// dictionary, so that a bounded cache can keep its least recently used entry at hand whatever its
/// size.
struct RecencyList<Key: Hashable & Sendable>: Sendable {
  private struct Node: Sendable {
    var key: Key?
    /// The next more recently used node, or `-1`.
    var newer: Int
    /// The next less recently used node, or `-1`.
    var older: Int
  }

  private var nodes = [Node]()
  private var slots = [Key: Int]()
  private var freeSlots = [Int]()
  /// The most recently used node, or `-1`.
  private var newest = -1
  /// The least recently used node, or `-1`.
  private var oldest = -1

  /// Creates an empty list.
  init() {}

  /// The number of keys.
  var count: Int {
    self.slots.count
  }

  /// Whether the list has `key`.
  func contains(_ key: Key) -> Bool {
    self.slots[key] != nil
  }

  /// The least recently used key.
  var leastRecent: Key? {
    self.oldest < 0 ? nil : self.nodes[self.oldest].key
  }

  /// The keys from the least to the most recently used.
  var keysFromLeastRecent: [Key] {
    var keys = [Key]()
    keys.reserveCapacity(self.count)
    var slot = self.oldest
    while slot >= 0 {
      if let key = self.nodes[slot].key {
        keys.append(key)
      }
      slot = self.nodes[slot].newer
    }
    return keys
  }

  /// Marks `key` as the most recently used, adding it if it is new.
  ///
  /// - Parameter key: The key.
  /// - Returns: Whether the key was new.
  @discardableResult
  mutating func use(_ key: Key) -> Bool {
    if let slot = self.slots[key] {
      guard slot != self.newest else { return false }
      self.unlink(slot)
      self.linkAsNewest(slot)
      return false
    }
    let node = Node(key: key, newer: -1, older: -1)
    let slot: Int
    if let free = self.freeSlots.popLast() {
      slot = free
      self.nodes[slot] = node
    } else {
      slot = self.nodes.count
      self.nodes.append(node)
    }
    self.slots[key] = slot
    self.linkAsNewest(slot)
    return true
  }

  /// Removes `key`.
  ///
  /// - Parameter key: The key.
  /// - Returns: Whether the list had the key.
  @discardableResult
  mutating func remove(_ key: Key) -> Bool {
    guard let slot = self.slots.removeValue(forKey: key) else { return false }
    self.unlink(slot)
    self.nodes[slot].key = nil
    self.freeSlots.append(slot)
    return true
  }

  private mutating func unlink(_ slot: Int) {
    let node = self.nodes[slot]
    if node.newer >= 0 {
      self.nodes[node.newer].older = node.older
    } else {
      self.newest = node.older
    }
    if node.older >= 0 {
      self.nodes[node.older].newer = node.newer
    } else {
      self.oldest = node.newer
    }
    self.nodes[slot].newer = -1
    self.nodes[slot].older = -1
  }

  private mutating func linkAsNewest(_ slot: Int) {
    self.nodes[slot].older = self.newest
    self.nodes[slot].newer = -1
    if self.newest >= 0 {
      self.nodes[self.newest].newer = slot
    }
    self.newest = slot
    if self.oldest < 0 {
      self.oldest = slot
    }
  }
}
