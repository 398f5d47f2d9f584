import Testing

@testable import OperationCore

@Suite struct `Subscribers tests` {
  @Test func `The Count Follows Each Addition And Removal`() {
    var subscribers = Subscribers<String>()
    #expect(subscribers.count == 0)
    let first = subscribers.add("a")
    let second = subscribers.add("b")
    _ = subscribers.add("c")
    #expect(subscribers.count == 3)
    #expect(subscribers.remove(id: first) == true)
    #expect(subscribers.count == 2)
    #expect(subscribers.remove(id: second) == true)
    #expect(subscribers.count == 1)
    #expect(subscribers.count == subscribers.handlers.count)
  }

  @Test func `Removing An Unknown Or Removed Id Changes Nothing`() {
    var subscribers = Subscribers<String>()
    let id = subscribers.add("a")
    #expect(subscribers.remove(id: id + 1) == false)
    #expect(subscribers.remove(id: id) == true)
    #expect(subscribers.remove(id: id) == false)
    #expect(subscribers.count == 0)
    #expect(subscribers.handlers.isEmpty)
  }

  @Test func `Removing A Handler Keeps The Others Reachable By Their Ids`() {
    var subscribers = Subscribers<String>()
    let ids = ["a", "b", "c", "d"].map { subscribers.add($0) }
    #expect(subscribers.remove(id: ids[0]) == true)
    #expect(Set(subscribers.handlers) == ["b", "c", "d"])
    #expect(subscribers.remove(id: ids[3]) == true)
    #expect(subscribers.remove(id: ids[1]) == true)
    #expect(subscribers.handlers == ["c"])
    #expect(subscribers.count == 1)
  }
}
