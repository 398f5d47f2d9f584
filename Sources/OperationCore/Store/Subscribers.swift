/// The handlers subscribed to a store, with O(1) insertion and removal.
///
/// Handlers sit in a contiguous array, so a notification snapshots them by copying one buffer
/// reference (copy-on-write), not one value per subscriber.
@usableFromInline
struct Subscribers<Handler> {
  @usableFromInline private(set) var handlers = ContiguousArray<Handler>()
  @usableFromInline var ids = ContiguousArray<Int>()
  private var indexByID = [Int: Int]()
  private var nextID = 0

  // NB: `ids` has one entry per handler. Its count is read instead of `handlers.count` because
  // `ContiguousArray<Int>` is a concrete type: the store's generic code reads it inlined,
  // where `handlers.count` is a call that needs the handler type's metadata from the runtime.
  @inlinable
  var count: Int { self.ids.count }

  /// Adds a handler and returns its id.
  mutating func add(_ handler: Handler) -> Int {
    let id = self.nextID
    self.nextID += 1
    self.indexByID[id] = self.handlers.count
    self.handlers.append(handler)
    self.ids.append(id)
    return id
  }

  /// Removes the handler with an id; returns whether it was there.
  @discardableResult
  mutating func remove(id: Int) -> Bool {
    guard let index = self.indexByID.removeValue(forKey: id) else { return false }
    let lastIndex = self.handlers.count - 1
    if index != lastIndex {
      self.handlers.swapAt(index, lastIndex)
      self.ids.swapAt(index, lastIndex)
      self.indexByID[self.ids[index]] = index
    }
    self.handlers.removeLast()
    self.ids.removeLast()
    return true
  }
}

extension Subscribers: Sendable where Handler: Sendable {}
