/// The optimistic changes that mutations show in a store: the value before them, and the changes
/// in flight. (The store's `StoreRunStateMachine` counts the protections.)
package struct MutationProtection<Value: Sendable>: Sendable {
  package typealias Change = @Sendable (inout Value) -> Void

  private struct Entry: Sendable {
    let id: Int
    let change: Change?
    var isCommitted = false
  }

  /// The value before the changes in flight, while there are any.
  private var base: Value?
  private var entries = [Entry]()
  private var nextID = 0

  /// Bumped by every change to the base or the changes, so that a value computed from an older
  /// snapshot is not shown.
  package private(set) var version = 0

  /// Creates a protection with no changes in flight.
  package init() {}

  /// Whether optimistic changes are in flight.
  package var hasChanges: Bool { self.base != nil }

  /// The earlier value and the changes to apply to it, when there are changes.
  package var snapshot: (base: Value, changes: [Change], version: Int)? {
    guard let base = self.base else { return nil }
    return (base, self.entries.compactMap(\.change), self.version)
  }

  /// Starts a protection, with an optimistic change or without.
  package mutating func begin(change: Change?, base: Value) -> Int {
    let id = self.nextID
    self.nextID += 1
    guard let change else { return id }
    if self.base == nil {
      self.base = base
    }
    self.entries.append(Entry(id: id, change: change))
    self.version &+= 1
    return id
  }

  /// Ends a protection; returns whether the value must be computed again.
  package mutating func end(id: Int, keepsChange: Bool) -> Bool {
    guard let index = self.entries.firstIndex(where: { $0.id == id }) else { return false }
    if keepsChange {
      self.entries[index].isCommitted = true
      if self.entries.allSatisfy(\.isCommitted) {
        // NB: The value shown already has every change; nothing is left to roll back.
        self.dropChanges()
      }
      return false
    }
    self.entries.remove(at: index)
    self.version &+= 1
    return true
  }

  /// Replaces the earlier value; committed changes count as part of it.
  package mutating func rebase(on value: Value) {
    self.base = value
    self.entries.removeAll(where: \.isCommitted)
    self.version &+= 1
  }

  /// Records that the value with the changes in flight is shown; with no change left in flight,
  /// the earlier value is forgotten.
  package mutating func applied() {
    if !self.entries.contains(where: { !$0.isCommitted }) {
      self.dropChanges()
    }
  }

  /// Forgets the earlier value and the changes, as a reset does.
  package mutating func dropChanges() {
    self.base = nil
    self.entries.removeAll()
    self.version &+= 1
  }
}
