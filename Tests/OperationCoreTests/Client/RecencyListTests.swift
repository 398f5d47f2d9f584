import PropertyBased
import Testing

@testable import OperationCore

@Suite struct `RecencyList tests` {
  @Test func `Keys Come Out From The Least To The Most Recently Used`() {
    var list = RecencyList<Int>()
    #expect(list.use(1) == true)
    #expect(list.use(2) == true)
    #expect(list.use(3) == true)
    #expect(list.use(1) == false)
    #expect(list.keysFromLeastRecent == [2, 3, 1])
    #expect(list.leastRecent == 2)
    #expect(list.count == 3)
  }

  @Test func `Removing A Key Keeps The Order Of The Others And Frees Its Slot`() {
    var list = RecencyList<Int>()
    for key in 0..<5 { list.use(key) }
    #expect(list.remove(2) == true)
    #expect(list.remove(2) == false)
    #expect(list.keysFromLeastRecent == [0, 1, 3, 4])
    #expect(list.remove(0) == true)
    #expect(list.leastRecent == 1)
    #expect(list.remove(4) == true)
    list.use(9)
    #expect(list.keysFromLeastRecent == [1, 3, 9])
    #expect(!list.contains(2))
  }

  @Test func `An Empty List Has No Least Recent Key`() {
    var list = RecencyList<String>()
    #expect(list.leastRecent == nil)
    list.use("a")
    list.remove("a")
    #expect(list.leastRecent == nil)
    #expect(list.keysFromLeastRecent.isEmpty)
  }

  @Test func `Generated Uses And Removals Agree With An Array`() async {
    // NB: An even number uses the key half its value, an odd one removes the key half its value.
    await propertyCheck(count: 300, input: Gen.int(in: 0...39).array(of: 0...200)) { events in
      var list = RecencyList<Int>()
      var model = [Int]()
      for event in events {
        let key = event / 2
        if event % 2 == 0 {
          let isNew = !model.contains(key)
          model.removeAll { $0 == key }
          model.append(key)
          #expect(list.use(key) == isNew)
        } else {
          let had = model.contains(key)
          model.removeAll { $0 == key }
          #expect(list.remove(key) == had)
        }
        #expect(list.keysFromLeastRecent == model)
        #expect(list.leastRecent == model.first)
        #expect(list.count == model.count)
      }
    }
  }
}
