import OperationDemoSupport
import Testing

@Suite struct `OutboxChildLine tests` {
  @Test(
    arguments: [
      OutboxChildLine.found("lane-0-item-1"),
      .enqueued("lane-3-item-49"),
      .ready(entries: 200),
      .delivered,
      .failed(key: "lane-1-item-2", error: "HTTP 422: the key was used"),
    ]
  )
  func `a line parses back to itself`(line: OutboxChildLine) {
    #expect(OutboxChildLine(parsing: line.text) == line)
    #expect(OutboxChildLine(parsing: line.text + "\n") == line)
  }

  @Test(arguments: ["", "enqueued", "ready lots", "delivered now", "Error: Missing argument"])
  func `other lines are not the child's`(text: String) {
    #expect(OutboxChildLine(parsing: text) == nil)
  }
}
