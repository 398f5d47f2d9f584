import Foundation
import Testing

@testable import OperationCore

@Suite struct `StateUpdateCounts tests` {
  @Test func `Values And Errors Are Counted Apart, Each With Its Latest Date`() {
    var counts = StateUpdateCounts()
    #expect(counts.valueCount == 0 && counts.errorCount == 0)
    #expect(counts.valueDate == nil && counts.errorDate == nil)

    counts.record(isSuccess: true, at: Date(timeIntervalSince1970: 1))
    counts.record(isSuccess: false, at: Date(timeIntervalSince1970: 2))
    counts.record(isSuccess: true, at: Date(timeIntervalSince1970: 3))

    #expect(counts.valueCount == 2)
    #expect(counts.valueDate == Date(timeIntervalSince1970: 3))
    #expect(counts.errorCount == 1)
    #expect(counts.errorDate == Date(timeIntervalSince1970: 2))
  }
}
