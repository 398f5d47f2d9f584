import Foundation
import OperationCore
import OperationTestSupport
import Processed
import Testing

@Suite struct `SingleProcess tests` {
  @Test func `New Processes Are Different`() {
    #expect(SingleProcess() != SingleProcess())
  }

  @Test func `Processes With One Identifier And One Date Are Equal`() {
    let date = Date(timeIntervalSince1970: 1_000)
    let process = SingleProcess(id: "1", initializedAt: date)
    #expect(process == SingleProcess(id: "1", initializedAt: date))
    #expect(process.hashValue == SingleProcess(id: "1", initializedAt: date).hashValue)
    #expect(process.id == "1")
    #expect(process.initializedAt == date)
  }

  @Test func `Processes With One Identifier Created Apart Are Different`() {
    let first = SingleProcess(id: "1")
    let second = SingleProcess(id: "1", initializedAt: first.initializedAt.addingTimeInterval(1))
    #expect(first != second)
  }

  @Test func `A New Process Is Dated By The Task's Clock`() {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 1_000))
    let (first, second) = SingleProcess.$clock.withValue(clock) {
      let first = SingleProcess(id: "1")
      clock.advance(by: 5)
      return (first, SingleProcess(id: "1"))
    }
    #expect(first.initializedAt == Date(timeIntervalSince1970: 1_000))
    #expect(second.initializedAt == Date(timeIntervalSince1970: 1_005))
    #expect(first != second)
  }

  @Test func `Processes With One Identifier Made At One Instant Of The Clock Are Equal`() {
    let date = Date(timeIntervalSince1970: 1_000)
    SingleProcess.$clock.withValue(.timeFreeze(date)) {
      #expect(SingleProcess(id: "1") == SingleProcess(id: "1"))
      #expect(SingleProcess() != SingleProcess())
    }
  }

  @Test @MainActor func `A Run Without A Process Dates Its Process By The Task's Clock`() async {
    let date = Date(timeIntervalSince1970: 1_000)
    let container = ProcessContainer()
    await SingleProcess.$clock.withValue(.timeFreeze(date)) {
      await container.binding.run {}
    }
    #expect(container.process.process?.initializedAt == date)
    #expect(container.process.hasFinished)
  }

  @Test func `The Debug Description Is The Identifier`() {
    #expect(SingleProcess(id: "save").debugDescription == "save")
  }
}
