import PropertyBased
import Testing

@testable import OperationCore

@Suite struct `TaskTable tests` {
  @Test func `Entries Keep The Order In Which They Were Added`() {
    var table = TaskTable<Int>()
    let ids = (0..<40).map { _ in OperationTaskIdentifier() }
    for (index, id) in ids.enumerated() {
      let appended = table.append(index, id: id)
      #expect(appended)
    }
    let appendedTwice = table.append(99, id: ids[3])
    #expect(!appendedTwice)
    #expect(table.count == 40)
    #expect(Array(table.elements) == Array(0..<40))
  }

  @Test func `Removing Entries From Anywhere Keeps The Others In Order`() {
    var table = TaskTable<Int>()
    let ids = (0..<1_000).map { _ in OperationTaskIdentifier() }
    for (index, id) in ids.enumerated() {
      table.append(index, id: id)
    }
    for index in stride(from: 0, to: 1_000, by: 3) {
      let removed = table.remove(ids[index])
      #expect(removed)
    }
    let removedTwice = table.remove(ids[0])
    #expect(!removedTwice)
    #expect(Array(table.elements) == (0..<1_000).filter { $0 % 3 != 0 })
    #expect(table.contains(ids[1]) && !table.contains(ids[3]))
  }

  @Test func `Generated Additions And Removals Match An Array`() async {
    // NB: Each number is one event: an even one adds an entry, an odd one removes the entry at
    // its half modulo the count, so that both small and indexed tables see holes everywhere.
    await propertyCheck(count: 200, input: Gen.int(in: 0...199).array(of: 0...300)) { events in
      var table = TaskTable<Int>()
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
        #expect(table.count == model.count)
        #expect(Array(table.elements) == model.map(\.value))
      }
      for entry in model {
        #expect(table.contains(entry.id))
      }
    }
  }

  @Test func `Emptying The Table Forgets Every Entry`() {
    var table = TaskTable<Int>()
    let ids = (0..<30).map { _ in OperationTaskIdentifier() }
    for (index, id) in ids.enumerated() {
      table.append(index, id: id)
    }
    for id in ids.reversed() {
      table.remove(id)
    }
    #expect(table.isEmpty)
    #expect(table.elements.isEmpty)
    table.append(7, id: ids[0])
    #expect(Array(table.elements) == [7])
    table.removeAll()
    #expect(table.isEmpty && !table.contains(ids[0]))
  }
}
