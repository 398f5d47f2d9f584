import OperationCore
import Testing

@Suite struct `MemoryPressure tests` {
  @Test func `Severities Use The Dispatch Bits`() {
    #expect(MemoryPressure.normal.rawValue == 1)
    #expect(MemoryPressure.warning.rawValue == 2)
    #expect(MemoryPressure.critical.rawValue == 4)
    #expect(MemoryPressure.all == [.normal, .warning, .critical])
    #expect(MemoryPressure.defaultEvictable == [.warning, .critical])
  }

  @Test(arguments: [
    (MemoryPressure(), "[]"),
    (MemoryPressure.warning, "[warning]"),
    (MemoryPressure.all, "[normal, warning, critical]"),
    (MemoryPressure(rawValue: 1 | 8), "[normal, rawValue: 8]"),
  ])
  func `Describes Its Severities`(pressure: MemoryPressure, description: String) {
    #expect(pressure.description == description)
  }
}
