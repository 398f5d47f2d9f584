import Foundation
@_spi(Warnings) import OperationCore
import OperationGraph
import OperationGraphTestFixtures
@_spi(Warnings) import OperationQueueCompat
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `GroupOperation tests` {
  @Test func `Every child executes before the group finishes`() async throws {
    let children = (0..<5).map { TestOperation(name: "\($0)") }
    let plain = Foundation.BlockOperation {}
    let group = GroupOperation(operations: children + [plain])
    OperationQueue().addOperation(group)
    try await group.untilFinished()
    #expect(children.allSatisfy { $0.didExecute && $0.isFinished })
    #expect(plain.isFinished)
    #expect(group.aggregateErrors.isEmpty)
    #expect(group.operations.count == 6)
  }

  @Test func `The children wait for the group to execute`() async throws {
    let child = TestOperation()
    let group = GroupOperation(operations: child)
    #expect(group.internalQueue.isSuspended)
    let queue = OperationQueue()
    queue.isSuspended = true
    queue.addOperation(group)
    #expect(!child.didExecute)
    queue.isSuspended = false
    try await group.untilFinished()
    #expect(child.didExecute)
  }

  @Test func `The variadic init and addOperations before running add children`() async throws {
    let a = TestOperation()
    let b = TestOperation()
    let c = TestOperation()
    let group = GroupOperation(operations: a, b)
    group.addOperations([c])
    OperationQueue().addOperation(group)
    try await group.untilFinished()
    #expect(a.didExecute && b.didExecute && c.didExecute)
  }

  @Test func `A child added while the group runs executes before the group finishes`() async throws
  {
    let gate = Gate()
    let started = Latch()
    let first = TestOperation(gate: gate)
    first.addObserver(BlockObserver(didStart: { _ in started.arrive() }))
    let group = GroupOperation(operations: first)
    OperationQueue().addOperation(group)
    await started.wait(for: 1)
    let late = TestOperation()
    group.addOperation(late)
    try await late.untilFinished()
    #expect(!group.isFinished)
    gate.open()
    try await group.untilFinished()
    #expect(late.didExecute)
  }

  @Test func `A child's produced operation becomes a child`() async throws {
    let produced = TestOperation(name: "Produced")
    let producer = ProducingOperation(producing: produced)
    let group = GroupOperation(operations: producer)
    OperationQueue().addOperation(group)
    try await group.untilFinished()
    #expect(produced.didExecute)
    #expect(group.operations.contains { $0 === produced })
  }

  @Test func `The group aggregates its children's errors`() async throws {
    let count = 1_000
    let children = (0..<count).map { TestOperation(error: TestError(id: $0)) }
    let group = GroupOperation(operations: children)
    OperationQueue().addOperation(group)
    try? await group.untilFinished()
    #expect(group.aggregateErrors.count == count)
    #expect(group.errors.count == count)
    #expect(group.failed)
  }

  @Test func `A nested group contributes its own aggregate`() async throws {
    let inner = GroupOperation(operations: TestOperation(error: TestError()), TestOperation())
    let middle = GroupOperation(operations: inner, TestOperation())
    let outer = GroupOperation(operations: middle)
    OperationQueue().addOperation(outer)
    try? await outer.untilFinished()
    #expect(inner.aggregateErrors.count == 1)
    #expect(middle.aggregateErrors.count == 1)
    #expect(outer.aggregateErrors.count == 1)
    #expect(outer.aggregateErrors.first is TestError)
  }

  @Test func `A child's failed condition joins the aggregate and the child does not execute`()
    async throws
  {
    let child = TestOperation()
    child.addCondition(BlockCondition { false })
    let group = GroupOperation(operations: child)
    OperationQueue().addOperation(group)
    try? await group.untilFinished()
    #expect(!child.didExecute)
    #expect(group.aggregateErrors.first as? BlockConditionFailed == BlockConditionFailed())
  }

  @Test func `Cancelling a running group cancels every child and it finishes once they have`()
    async throws
  {
    let gate = Gate()
    let started = Latch()
    let running = TestOperation(gate: gate)
    running.addObserver(BlockObserver(didStart: { _ in started.arrive() }))
    let waiting = TestOperation()
    waiting.addDependency(running)
    let group = GroupOperation(operations: running, waiting)
    OperationQueue().addOperation(group)
    await started.wait(for: 1)
    group.cancel()
    try? await group.untilFinished()
    #expect(group.isCancelled && group.isFinished)
    #expect(running.isCancelled && running.isFinished)
    #expect(waiting.isCancelled && waiting.isFinished)
    #expect(!waiting.didExecute)
  }

  @Test func `Cancelling a group before it runs cancels its children`() async throws {
    let children = [TestOperation(), TestOperation()]
    let group = GroupOperation(operations: children)
    group.cancel()
    OperationQueue().addOperation(group)
    try? await group.untilFinished()
    for child in children {
      try? await child.untilFinished()
      #expect(child.isCancelled && !child.didExecute)
    }
  }

  @Test func `cancelWithErrors gives the children a parent-cancelled error`() async throws {
    let gate = Gate()
    let started = Latch()
    let child = TestOperation(gate: gate)
    child.addObserver(BlockObserver(didStart: { _ in started.arrive() }))
    let group = GroupOperation(operations: child)
    OperationQueue().addOperation(group)
    await started.wait(for: 1)
    group.cancelWithError(TestError(id: 7))
    try? await group.untilFinished()
    let parentError = try #require(child.errors.first as? OperationParentCancelledError)
    #expect(parentError.errors.count == 1)
    #expect(parentError.errors.first as? TestError == TestError(id: 7))
    #expect(group.errors.first as? TestError == TestError(id: 7))
  }

  @Test func `willFinishOperation is called once per child with its errors`() async throws {
    let log = EventLog()
    let group = RecordingGroup(
      log: log,
      operations: [TestOperation(name: "ok"), TestOperation(name: "bad", error: TestError())]
    )
    OperationQueue().addOperation(group)
    try? await group.untilFinished()
    #expect(log.events.sorted() == ["bad: 1", "ok: 0"])
  }

  @Test func `A child added after the group finished is reported and does not run`() async throws {
    let group = GroupOperation(operations: TestOperation())
    OperationQueue().addOperation(group)
    try await group.untilFinished()
    let late = TestOperation()
    withKnownIssue {
      group.addOperation(late)
    } matching: { issue in
      issue.comments.contains(
        Comment(
          rawValue: OperationWarning.groupOperationChildAddedAfterFinishing(
            String(describing: late),
            group.description
          ).message
        )
      )
    }
    #expect(!late.didExecute)
    #expect(!group.operations.contains { $0 === late })
  }
}

/// Produces an operation when it executes, then finishes.
final class ProducingOperation: ConcurrentOperation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; the stored property is a
  // `let` of a `Sendable` class.
  private let produced: Foundation.Operation

  init(name: String? = nil, producing produced: Foundation.Operation) {
    self.produced = produced
    super.init()
    self.name = name
  }

  override func execute() {
    self.produceOperation(self.produced)
    self.finish()
  }
}

/// A group that logs `"<child name>: <error count>"` as each child finishes.
private final class RecordingGroup: GroupOperation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; the stored property is a
  // `let` of a `Sendable` class.
  let log: EventLog

  init(log: EventLog, operations: [Foundation.Operation]) {
    self.log = log
    super.init(operations: operations)
  }

  override func willFinishOperation(_ operation: Foundation.Operation, errors: [any Error]) {
    self.log.append("\(operation.name ?? "?"): \(errors.count)")
  }
}
