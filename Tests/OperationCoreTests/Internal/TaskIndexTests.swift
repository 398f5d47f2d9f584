import PropertyBased
import Testing

@testable import OperationCore

@Suite struct `TaskIndex tests` {
  /// An index and the array it indexes, edited together as a store does.
  private struct Indexed {
    var index = TaskIndex()
    var elements = ContiguousArray<Int>()

    @discardableResult
    mutating func append(_ element: Int, id: OperationTaskIdentifier) -> Bool {
      guard self.index.append(id) else { return false }
      self.elements.append(element)
      return true
    }

    @discardableResult
    mutating func remove(_ id: OperationTaskIdentifier) -> Bool {
      let removal = self.index.remove(id)
      self.elements.apply(removal)
      if case .none = removal { return false }
      return true
    }

    var entries: [Int] { Array(self.elements.entries(of: self.index)) }
  }

  @Test func `Entries Keep The Order In Which They Were Added`() {
    var table = Indexed()
    let ids = (0..<40).map { _ in OperationTaskIdentifier() }
    for (element, id) in ids.enumerated() {
      let appended = table.append(element, id: id)
      #expect(appended)
    }
    let appendedTwice = table.append(99, id: ids[3])
    #expect(!appendedTwice)
    #expect(table.index.count == 40)
    #expect(table.entries == Array(0..<40))
  }

  @Test func `Removing Entries From Anywhere Keeps The Others In Order`() {
    var table = Indexed()
    let ids = (0..<1_000).map { _ in OperationTaskIdentifier() }
    for (element, id) in ids.enumerated() {
      table.append(element, id: id)
    }
    for element in stride(from: 0, to: 1_000, by: 3) {
      let removed = table.remove(ids[element])
      #expect(removed)
    }
    let removedTwice = table.remove(ids[0])
    #expect(!removedTwice)
    #expect(table.entries == (0..<1_000).filter { $0 % 3 != 0 })
    #expect(table.index.contains(ids[1]) && !table.index.contains(ids[3]))
    #expect(table.elements.count <= 2 * table.index.count + TaskIndex.indexThreshold)
  }

  @Test func `Generated Additions And Removals Match An Array`() async {
    // NB: Each number is one event: an even one adds an entry, an odd one removes the entry at
    // its half modulo the count, so that both small and indexed tables see holes everywhere.
    await propertyCheck(count: 200, input: Gen.int(in: 0...199).array(of: 0...300)) { events in
      var table = Indexed()
      var model = [(id: OperationTaskIdentifier, value: Int)]()
      for (step, event) in events.enumerated() {
        if event % 2 == 0 || model.isEmpty {
          let id = OperationTaskIdentifier()
          table.append(step, id: id)
          model.append((id, step))
        } else {
          let removed = model.remove(at: (event / 2) % model.count)
          let found = table.remove(removed.id)
          #expect(found)
        }
        #expect(table.index.count == model.count)
        #expect(table.entries == model.map(\.value))
        #expect(table.elements.count <= 2 * model.count + TaskIndex.indexThreshold)
      }
      for entry in model {
        #expect(table.index.contains(entry.id))
      }
    }
  }

  @Test func `Emptying The Index Forgets Every Entry`() {
    var table = Indexed()
    let ids = (0..<30).map { _ in OperationTaskIdentifier() }
    for (element, id) in ids.enumerated() {
      table.append(element, id: id)
    }
    for id in ids.reversed() {
      table.remove(id)
    }
    #expect(table.index.isEmpty)
    #expect(table.elements.isEmpty)
    table.append(7, id: ids[0])
    #expect(table.entries == [7])
  }
}
