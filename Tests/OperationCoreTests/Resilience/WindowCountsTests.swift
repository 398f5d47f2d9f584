import Foundation
import Testing

@testable import OperationCore

@Suite struct `WindowCounts tests` {
  @Test func `Counts Expire Once Their Second Leaves The Window`() {
    var counts = WindowCounts(window: .seconds(3))
    let start = Date(timeIntervalSince1970: 10)
    counts.add(first: 2, second: 1, at: start)
    counts.add(first: 1, at: start.addingTimeInterval(1.5))
    #expect(counts.totals(at: start.addingTimeInterval(2)) == (3, 1))
    #expect(counts.totals(at: start.addingTimeInterval(3)) == (1, 0))
    #expect(counts.totals(at: start.addingTimeInterval(4.9)) == (0, 0))
  }

  @Test func `A Slot Reused By A Later Second Starts Empty`() {
    var counts = WindowCounts(window: .seconds(2))
    let start = Date(timeIntervalSince1970: 100)
    counts.add(first: 5, at: start)
    counts.add(second: 1, at: start.addingTimeInterval(2))
    #expect(counts.totals(at: start.addingTimeInterval(2)) == (0, 1))
  }

  @Test func `The Window Is At Least One Whole Second`() {
    #expect(WindowCounts(window: .milliseconds(10)).seconds == 1)
    #expect(WindowCounts(window: .milliseconds(1_500)).seconds == 2)
  }

  @Test func `Dates Before 1970 Count In Their Own Seconds`() {
    var counts = WindowCounts(window: .seconds(2))
    let date = Date(timeIntervalSince1970: -3.5)
    counts.add(first: 1, at: date)
    #expect(counts.totals(at: date) == (1, 0))
  }

  @Test func `A Window Of An Hour Is The Longest; A Longer One Stops The Program`() async {
    #expect(WindowCounts(window: .seconds(3_600)).seconds == 3_600)
    await #expect(processExitsWith: .failure) {
      _ = WindowCounts(window: .seconds(3_601))
    }
  }
}
