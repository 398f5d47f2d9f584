import Foundation
@_spi(Warnings) import OperationCore
@_spi(Warnings) import OperationGraph
import OperationGraphTestFixtures
@_spi(Warnings) import OperationQueueCompat
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `OperationCondition tests` {
  @Test func `a failed condition finishes the operation with its error, without executing`()
    async throws
  {
    let operation = TestOperation()
    operation.addCondition(BlockCondition { false })
    OperationQueue().addOperation(operation)
    await #expect(throws: OperationErrors.self) { try await operation.untilFinished() }
    #expect(!operation.didExecute && !operation.isCancelled && operation.isFinished)
    #expect(operation.errors.map { $0 as? BlockConditionFailed } == [BlockConditionFailed()])
  }

  @Test func `every failure of every condition is kept, in the order they were added`()
    async throws
  {
    let operation = TestOperation()
    operation.addCondition(BlockCondition { throw TestError(id: 1) })
    operation.addCondition(BlockCondition { true })
    operation.addCondition(BlockCondition { throw TestError(id: 2) })
    #expect(operation.conditions.count == 3)
    OperationQueue().addOperation(operation)
    await #expect(throws: OperationErrors.self) { try await operation.untilFinished() }
    #expect(!operation.didExecute)
    #expect(operation.errors.map { $0 as? TestError } == [TestError(id: 1), TestError(id: 2)])
  }

  @Test func `conditions are evaluated concurrently`() async throws {
    let both = Latch()
    let operation = TestOperation()
    for _ in 0..<2 {
      operation.addCondition(
        BlockCondition {
          both.arrive()
          await both.wait(for: 2)
          return true
        }
      )
    }
    OperationQueue().addOperation(operation)
    try await operation.untilFinished()
    #expect(operation.didExecute)
  }

  @Test func `satisfied conditions let the operation execute`() async throws {
    let operation = TestOperation()
    operation.addCondition(BlockCondition { true })
    operation.addCondition(MutuallyExclusive<TestOperation>())
    OperationQueue().addOperation(operation)
    try await operation.untilFinished()
    #expect(operation.didExecute && !operation.failed)
  }

  @Test func `a condition's dependency runs after the ordinary dependencies, before evaluation`()
    async throws
  {
    let log = EventLog()
    let ordinary = TestOperation(name: "ordinary", log: log)
    let conditionDependency = TestOperation(name: "condition dependency", log: log)
    let operation = TestOperation(name: "operation", log: log)
    operation.addDependency(ordinary)
    operation.addCondition(
      RecordingCondition(dependency: conditionDependency) {
        log.append("evaluate")
        return .satisfied
      }
    )
    let queue = OperationQueue()
    queue.addOperation(operation)
    queue.addOperation(ordinary)
    try await operation.untilFinished()
    #expect(log.events == ["ordinary", "condition dependency", "evaluate", "operation"])
    #expect(operation.dependencies == [ordinary])
  }

  @Test func `a dependency shared by two conditions runs once, with its own dependencies`()
    async throws
  {
    let log = EventLog()
    let prerequisite = TestOperation(name: "prerequisite", log: log)
    let shared = TestOperation(name: "shared", log: log)
    shared.addDependency(prerequisite)
    let operation = TestOperation(name: "operation", log: log)
    operation.addCondition(RecordingCondition(dependency: shared) { .satisfied })
    operation.addCondition(RecordingCondition(dependency: shared) { .satisfied })
    OperationQueue().addOperation(operation)
    try await operation.untilFinished()
    #expect(log.events == ["prerequisite", "shared", "operation"])
    #expect(shared.executionCount == 1)
  }

  @Test func `a cancelled verdict cancels the operation quietly`() async throws {
    let dependency = TestOperation()
    dependency.cancel()
    let operation = TestOperation()
    operation.addDependency(dependency)
    operation.addCondition(NoFailedDependenciesCondition(ignoringCancellations: true))
    let queue = OperationQueue()
    queue.addOperation(dependency)
    queue.addOperation(operation)
    await #expect(throws: CancellationError.self) { try await operation.untilFinished() }
    #expect(!operation.didExecute && operation.isCancelled && operation.errors.isEmpty)
  }

  @Test func `a condition that answers twice counts once`() async throws {
    let operation = TestOperation()
    operation.addCondition(
      RecordingCondition(answers: [.failed(TestError(id: 1)), .satisfied]) { .satisfied }
    )
    OperationQueue().addOperation(operation)
    await #expect(throws: OperationErrors.self) { try await operation.untilFinished() }
    #expect(operation.errors.map { $0 as? TestError } == [TestError(id: 1)])
  }

  @Test func `cancelling an operation that waits for a condition finishes it without executing`()
    async throws
  {
    let evaluating = Latch()
    let release = Gate()
    let operation = TestOperation()
    operation.addCondition(
      BlockCondition {
        evaluating.arrive()
        await release.wait()
        return true
      }
    )
    OperationQueue().addOperation(operation)
    await evaluating.wait(for: 1)
    #expect(operation.isExecuting)
    operation.cancel()
    release.open()
    await #expect(throws: CancellationError.self) { try await operation.untilFinished() }
    #expect(!operation.didExecute)
  }

  @Test func `a condition added after the start is reported and ignored`() {
    let operation = TestOperation()
    operation.start()
    let description = operation.description
    let condition = BlockCondition { false }
    withKnownIssue {
      operation.addCondition(condition)
    } matching: { issue in
      issue.comments.contains(
        Comment(
          rawValue: OperationWarning.concurrentOperationConditionAfterStart(
            condition.name,
            description
          ).message
        )
      )
    }
    #expect(operation.conditions.isEmpty)
  }

  @Test func `a mutually exclusive condition's category is its type name`() {
    #expect(
      RecordingCondition(isMutuallyExclusive: true) { .satisfied }.mutualExclusionCategory
        == "RecordingCondition"
    )
    #expect(RecordingCondition { .satisfied }.mutualExclusionCategory == nil)
    #expect(MutuallyExclusive<Alert>().isMutuallyExclusive)
    #expect(!BlockCondition { true }.isMutuallyExclusive)
  }

  @Test func `operations of one category never overlap, and run in the order they asked`()
    async throws
  {
    let category = "OperationConditionTests.overlap"
    let probe = ConcurrencyProbe(nodeCount: 3)
    let gates = (0..<3).map { _ in Gate() }
    let operations = (0..<3).map { index in
      GatedProbeOperation(index: index, probe: probe, gate: gates[index])
    }
    for operation in operations {
      operation.addCondition(MutuallyExclusive(category: category))
    }
    let started = Latch()
    operations[0].addDidStartBlock { started.arrive() }
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 8
    queue.addOperation(operations[0])
    await started.wait(for: 1)
    queue.addOperation(operations[1])
    await ExclusivityLocks.shared.waitForWaiters("MutuallyExclusive<\(category)>", count: 1)
    queue.addOperation(operations[2])
    await ExclusivityLocks.shared.waitForWaiters("MutuallyExclusive<\(category)>", count: 2)
    #expect(probe.runs == [1, 0, 0])
    for gate in gates {
      gate.open()
    }
    for operation in operations {
      try await operation.untilFinished()
    }
    #expect(probe.maxRunning == 1)
    #expect(probe.runs == [1, 1, 1])
    #expect(probe.orderViolations(dependencies: [[], [0], [1]]).isEmpty)
  }

  @Test func `cancelling an operation that waits for its category's lock finishes it`()
    async throws
  {
    let category = "OperationConditionTests.cancelWaiting"
    let gate = Gate()
    let holder = TestOperation(gate: gate)
    let waiter = TestOperation()
    let started = Latch()
    holder.addDidStartBlock { started.arrive() }
    holder.addCondition(MutuallyExclusive(category: category))
    waiter.addCondition(MutuallyExclusive(category: category))
    let queue = OperationQueue()
    queue.addOperation(holder)
    await started.wait(for: 1)
    queue.addOperation(waiter)
    await ExclusivityLocks.shared.waitForWaiters("MutuallyExclusive<\(category)>", count: 1)
    waiter.cancel()
    await #expect(throws: CancellationError.self) { try await waiter.untilFinished() }
    #expect(!waiter.didExecute && holder.isExecuting)
    gate.open()
    try await holder.untilFinished()
    #expect(!ExclusivityLocks.shared.isHeld("MutuallyExclusive<\(category)>"))
  }

  @Test func `graph nodes and operations of one category exclude each other`() async throws {
    let category = "OperationConditionTests.shared"
    let gate = Gate()
    let operation = TestOperation(gate: gate)
    let started = Latch()
    operation.addDidStartBlock { started.arrive() }
    operation.addCondition(MutuallyExclusive(category: category))
    OperationQueue().addOperation(operation)
    await started.wait(for: 1)
    let graph = WorkGraph()
    let ran = Lock(false)
    try graph.add(conditions: [MutuallyExclusive(category: category)]) { _ in
      ran.withLock { $0 = true }
    }
    let run = Task { await graph.run() }
    await ExclusivityLocks.shared.waitForWaiters("MutuallyExclusive<\(category)>", count: 1)
    #expect(!ran.withLock { $0 })
    gate.open()
    _ = await run.value
    #expect(ran.withLock { $0 })
  }
}

/// A condition with a dependency and a verdict from a closure, which can answer several times.
private struct RecordingCondition: OperationCondition {
  let name = "Recording"
  let isMutuallyExclusive: Bool
  let conditionDependency: Foundation.Operation?
  let answers: [OperationConditionResult]
  let verdict: @Sendable () -> OperationConditionResult

  init(
    isMutuallyExclusive: Bool = false,
    dependency: Foundation.Operation? = nil,
    answers: [OperationConditionResult] = [],
    verdict: @escaping @Sendable () -> OperationConditionResult
  ) {
    self.isMutuallyExclusive = isMutuallyExclusive
    self.conditionDependency = dependency
    self.answers = answers
    self.verdict = verdict
  }

  func dependency(for operation: ConcurrentOperation) -> Foundation.Operation? {
    self.conditionDependency
  }

  func evaluate(
    for operation: ConcurrentOperation,
    completion: @escaping @Sendable (OperationConditionResult) -> Void
  ) {
    guard self.answers.isEmpty else {
      for answer in self.answers {
        completion(answer)
      }
      return
    }
    completion(self.verdict())
  }
}

/// Enters a probe when it executes and leaves it when its gate opens.
private final class GatedProbeOperation: ConcurrentOperation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; the stored properties are
  // `let`s of `Sendable` types.
  private let index: Int
  private let probe: ConcurrencyProbe
  private let gate: Gate?

  init(index: Int, probe: ConcurrencyProbe, gate: Gate? = nil) {
    self.index = index
    self.probe = probe
    self.gate = gate
  }

  override func execute() {
    self.probe.enter(self.index)
    guard let gate else {
      self.probe.exit(self.index)
      self.finish()
      return
    }
    Task {
      await gate.wait()
      self.probe.exit(self.index)
      self.finish()
    }
  }
}
