import Foundation
import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationQueueCompat
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `Operation chaining tests` {
  @Test func `then adds a dependency and returns the next operation`() {
    let first = TestOperation()
    let second = TestOperation()
    let returned = first.then(do: second)
    #expect(returned === second)
    #expect(second.dependencies == [first])
  }

  @Test func `the chain of an operation is itself and everything it depends on`() {
    let a = TestOperation()
    let b = TestOperation()
    let c = TestOperation()
    let d = TestOperation()
    a.then(do: b).then(do: c)
    d.addDependency(a)
    c.addDependency(d)
    #expect(a.operationChain == [a])
    #expect(c.operationChain == [a, b, c, d])
  }

  @Test func `enqueue adds the whole chain and runs it in order`() async throws {
    let log = EventLog()
    let first = TestOperation(name: "first", log: log)
    let second = TestOperation(name: "second", log: log)
    let third = TestOperation(name: "third", log: log)
    let queue = OperationQueue()
    let returned = first.then(do: second).then(do: third).enqueue(on: queue)
    #expect(returned === third)
    try await third.untilFinished()
    #expect(log.events == ["first", "second", "third"])
  }

  @Test func `enqueue leaves finished operations of the chain alone`() async throws {
    let first = TestOperation()
    first.start()
    let second = TestOperation()
    first.then(do: second).enqueue()
    try await second.untilFinished()
    #expect(first.executionCount == 1 && second.didExecute)
  }

  @Test func `a collection enqueues the union of its chains`() async throws {
    let shared = TestOperation()
    let left = shared.then(do: TestOperation())
    let right = shared.then(do: TestOperation())
    [left, right].enqueue(on: OperationQueue())
    try await left.untilFinished()
    try await right.untilFinished()
    #expect(shared.executionCount == 1)
  }
}

@Suite(.timeLimit(.minutes(1))) struct `Operation chaining enqueue-once tests` {
  @Test func `chains that share an operation can each be enqueued`() async throws {
    let shared = TestOperation()
    let left = shared.then(do: TestOperation())
    let right = shared.then(do: TestOperation())
    let queue = OperationQueue()
    queue.isSuspended = true
    left.enqueue(on: queue)
    right.enqueue(on: queue)
    #expect(queue.operationCount == 3)
    queue.isSuspended = false
    try await left.untilFinished()
    try await right.untilFinished()
    #expect(shared.executionCount == 1)
  }

  @Test func `chains enqueued from many threads at once add each operation once`() async throws {
    let shared = TestOperation()
    let tails = (0..<50).map { _ in shared.then(do: TestOperation()) }
    let queue = OperationQueue()
    DispatchQueue.concurrentPerform(iterations: tails.count) { index in
      tails[index].enqueue(on: queue)
    }
    for tail in tails {
      try await tail.untilFinished()
    }
    #expect(shared.executionCount == 1)
    #expect(tails.allSatisfy { $0.executionCount == 1 })
  }
}
