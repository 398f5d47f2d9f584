import OperationCore
import Testing

@Suite struct `MutationProtection tests` {
  /// Applies the snapshot's changes to its base, as the store does with no lock held.
  private func shown(_ protection: MutationProtection<Int>) -> Int? {
    guard let snapshot = protection.snapshot else { return nil }
    var value = snapshot.base
    for change in snapshot.changes {
      change(&value)
    }
    return value
  }

  @Test func `A Protection Without A Change Keeps No Base`() {
    var protection = MutationProtection<Int>()
    let id = protection.begin(change: nil, base: 1)
    #expect(!protection.hasChanges)
    #expect(protection.snapshot == nil)
    #expect(protection.end(id: id, keepsChange: false) == false)
  }

  @Test func `Changes Apply In Order On Top Of The Value Before The First`() {
    var protection = MutationProtection<Int>()
    _ = protection.begin(change: { $0 += 1 }, base: 1)
    _ = protection.begin(change: { $0 *= 10 }, base: 2)
    #expect(self.shown(protection) == 20)
  }

  @Test func `Rolling One Change Back Removes It Alone And Asks For A New Value`() {
    var protection = MutationProtection<Int>()
    let first = protection.begin(change: { $0 += 1 }, base: 1)
    _ = protection.begin(change: { $0 *= 10 }, base: 2)
    let version = protection.version
    #expect(protection.end(id: first, keepsChange: false) == true)
    #expect(protection.version != version)
    #expect(self.shown(protection) == 10)
  }

  @Test func `Committing Every Change Forgets The Base`() {
    var protection = MutationProtection<Int>()
    let first = protection.begin(change: { $0 += 1 }, base: 1)
    let second = protection.begin(change: { $0 += 2 }, base: 2)
    #expect(protection.end(id: first, keepsChange: true) == false)
    #expect(protection.hasChanges)
    #expect(protection.end(id: second, keepsChange: true) == false)
    #expect(!protection.hasChanges)
  }

  @Test func `A New Base Drops The Committed Changes And Keeps The Others`() {
    var protection = MutationProtection<Int>()
    let committed = protection.begin(change: { $0 += 1 }, base: 1)
    _ = protection.begin(change: { $0 += 100 }, base: 2)
    _ = protection.end(id: committed, keepsChange: true)
    protection.rebase(on: 5)
    #expect(self.shown(protection) == 105)
  }

  @Test func `A Shown Value Forgets The Base Only When No Change Is Uncommitted`() {
    var protection = MutationProtection<Int>()
    let id = protection.begin(change: { $0 += 1 }, base: 1)
    protection.applied()
    #expect(protection.hasChanges)
    _ = protection.end(id: id, keepsChange: true)
    #expect(!protection.hasChanges)
    _ = protection.begin(change: { $0 += 1 }, base: 1)
    protection.dropChanges()
    #expect(protection.snapshot == nil)
  }
}
