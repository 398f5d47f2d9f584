import Foundation
import Processed
import Testing

@Suite struct `SingleProcess tests` {
  @Test func `New Processes Are Different`() {
    #expect(SingleProcess() != SingleProcess())
  }

  @Test func `A Process Equals Itself`() {
    let process = SingleProcess(id: "1")
    #expect(process == process)
    #expect(process.id == "1")
  }

  @Test func `Processes With One Identifier Created Apart Are Different`() {
    let first = SingleProcess(id: "1")
    let second = SingleProcess(id: "1", initializedAt: first.initializedAt.addingTimeInterval(1))
    #expect(first != second)
  }

  @Test func `The Debug Description Is The Identifier`() {
    #expect(SingleProcess(id: "save").debugDescription == "save")
  }
}
