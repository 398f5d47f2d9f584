import Foundation
import OperationCore
import OperationGraph
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `ConcurrentOperation tests` {
  @Test func `a plain queue runs dependents after their dependencies finish`() async throws {
    let log = EventLog()
    let a = TestOperation(name: "A", log: log)
    let b = TestOperation(name: "B", log: log)
    let c = TestOperation(name: "C", log: log)
    b.addDependency(a)
    c.addDependency(a)
    c.addDependency(b)
    let queue = OperationQueue()
    for operation in [c, b, a] {
      queue.addOperation(operation)
    }
    try await c.untilFinished()
    #expect(log.events == ["A", "B", "C"])
    #expect(a.isFinished && b.isFinished && c.isFinished)
    #expect(!c.isExecuting)
  }
}
