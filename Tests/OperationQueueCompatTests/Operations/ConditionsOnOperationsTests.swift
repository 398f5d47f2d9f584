import Foundation
import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationQueueCompat
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `Conditions on operations tests` {
  // MARK: - BlockCondition

  @Test func `A true BlockCondition lets the operation execute`() async throws {
    let operation = TestOperation()
    operation.addCondition(BlockCondition { true })
    OperationQueue().addOperation(operation)
    try await operation.untilFinished()
    #expect(operation.didExecute)
  }

  @Test func `A false BlockCondition finishes the operation with BlockConditionFailed`()
    async throws
  {
    let operation = TestOperation()
    operation.addCondition(BlockCondition { false })
    OperationQueue().addOperation(operation)
    try? await operation.untilFinished()
    #expect(!operation.didExecute)
    #expect(!operation.isCancelled)
    #expect(operation.errors.count == 1)
    #expect(operation.errors.first as? BlockConditionFailed == BlockConditionFailed())
  }

  @Test func `A throwing BlockCondition reports the thrown error`() async throws {
    let operation = TestOperation()
    operation.addCondition(BlockCondition { throw TestError(id: 4) })
    OperationQueue().addOperation(operation)
    try? await operation.untilFinished()
    #expect(!operation.didExecute)
    #expect(operation.errors.first as? TestError == TestError(id: 4))
  }

  // MARK: - NegatedCondition

  @Test func `Negating a satisfied condition fails with ConditionSatisfied`() async throws {
    let operation = TestOperation()
    operation.addCondition(NegatedCondition(BlockCondition { true }))
    OperationQueue().addOperation(operation)
    try? await operation.untilFinished()
    #expect(!operation.didExecute)
    #expect(operation.errors.count == 1)
    #expect(
      operation.errors.first as? NegatedConditionSatisfied
        == NegatedConditionSatisfied(name: "Block Condition")
    )
  }

  @Test func `Negating a failing condition lets the operation execute`() async throws {
    let operation = TestOperation()
    operation.addCondition(NegatedCondition(BlockCondition { false }))
    OperationQueue().addOperation(operation)
    try await operation.untilFinished()
    #expect(operation.didExecute && operation.isFinished && !operation.isCancelled)
  }

  @Test func `A negated condition is named Not and takes its exclusivity from the inner one`() {
    #expect(NegatedCondition(NoFailedDependenciesCondition()).name == "Not<No Failed Dependencies>")
    let exclusive = NegatedCondition(MutuallyExclusive<Alert>())
    #expect(exclusive.isMutuallyExclusive)
    #expect(exclusive.mutualExclusionCategory == MutuallyExclusive<Alert>().mutualExclusionCategory)
    #expect(!NegatedCondition(BlockCondition { true }).isMutuallyExclusive)
  }

  // MARK: - SilentCondition

  @Test func `A silent condition is named Silent and suppresses its inner dependency`()
    async throws
  {
    let log = EventLog()
    let inner = LoggingDependencyCondition(name: "Inner", log: log)
    let silent = SilentCondition(inner)
    #expect(silent.name == "Silent<Inner>")
    #expect(SilentCondition(BlockCondition { true }).name == "Silent<Block Condition>")
    let operation = TestOperation(name: "operation", log: log)
    #expect(silent.dependency(for: operation) == nil)
    #expect(inner.dependency(for: operation) != nil)
    operation.addCondition(silent)
    OperationQueue().addOperation(operation)
    try await operation.untilFinished()
    #expect(log.events == ["operation"])
  }

  // MARK: - MutuallyExclusive

  @Test func `AlertPresentation is an exclusive condition that is satisfied`() async throws {
    let condition = AlertPresentation()
    #expect(condition.name == "MutuallyExclusive<Alert>")
    #expect(condition.isMutuallyExclusive)
    let operation = TestOperation()
    operation.addCondition(condition)
    OperationQueue().addOperation(operation)
    try await operation.untilFinished()
    #expect(operation.didExecute)
  }

  @Test func `No two operations of one category run at once`() async throws {
    let count = 4
    let probe = ConcurrencyProbe(nodeCount: count)
    let gate = Gate()
    let entered = Latch()
    let queue = OperationQueue()
    let operations = (0..<count).map { index in
      let operation = ProbedOperation(index: index, probe: probe, gate: gate, entered: entered)
      operation.addCondition(MutuallyExclusive<ProbedOperation>())
      return operation
    }
    for operation in operations {
      queue.addOperation(operation)
    }
    await entered.wait(for: 1)
    // NB: A later plain operation on the same queue has run, so the queue has started every
    // exclusive operation that was free to run.
    let sentinel = Foundation.BlockOperation {}
    queue.addOperation(sentinel)
    try await sentinel.untilFinished()
    #expect(probe.running == 1)
    gate.open()
    for operation in operations {
      try await operation.untilFinished()
    }
    #expect(probe.maxRunning == 1)
    #expect(probe.runs == Array(repeating: 1, count: count))
  }

  @Test func `Exclusive conditions' dependencies run before their operations, one pair at a time`()
    async throws
  {
    let log = EventLog()
    let first = TestOperation(name: "op1", log: log)
    first.addCondition(LoggingDependencyCondition(name: "dep1", log: log, isExclusive: true))
    let second = TestOperation(name: "op2", log: log)
    second.addCondition(LoggingDependencyCondition(name: "dep2", log: log, isExclusive: true))
    let queue = OperationQueue()
    queue.addOperation(first)
    queue.addOperation(second)
    try await first.untilFinished()
    try await second.untilFinished()
    let events = log.events
    #expect(events == ["dep1", "op1", "dep2", "op2"] || events == ["dep2", "op2", "dep1", "op1"])
    #expect(!first.dependencies.contains { $0.name == "dep1" })
  }

  @Test func `Two exclusive BlockProcedures both complete`() async throws {
    let ran = Latch()
    let operations = (0..<2).map { _ in
      let operation = BlockProcedure { ran.arrive() }
      operation.addCondition(MutuallyExclusive<BlockProcedure>())
      return operation
    }
    let queue = OperationQueue()
    for operation in operations {
      queue.addOperation(operation)
    }
    for operation in operations {
      try await operation.untilFinished()
    }
    #expect(ran.count == 2)
  }

  // MARK: - NoFailedDependenciesCondition

  @Test func `NoFailedDependencies lets an operation without dependencies execute`() async throws {
    let operation = TestOperation()
    operation.addCondition(NoFailedDependenciesCondition())
    OperationQueue().addOperation(operation)
    try await operation.untilFinished()
    #expect(operation.didExecute)
  }

  @Test func `NoFailedDependencies lets an operation with a successful dependency execute`()
    async throws
  {
    let dependency = TestOperation()
    let operation = TestOperation()
    operation.addDependency(dependency)
    operation.addCondition(NoFailedDependenciesCondition())
    let queue = OperationQueue()
    [dependency, operation].enqueue(on: queue)
    try await operation.untilFinished()
    #expect(dependency.didExecute && operation.didExecute)
  }

  @Test func `NoFailedDependencies fails for a dependency cancelled as it starts`() async throws {
    let dependency = TestOperation()
    dependency.addObserver(BlockObserver(didStart: { $0.cancel() }))
    let operation = TestOperation()
    operation.addDependency(dependency)
    operation.addCondition(NoFailedDependenciesCondition())
    let queue = OperationQueue()
    [dependency, operation].enqueue(on: queue)
    try? await operation.untilFinished()
    #expect(dependency.isCancelled)
    #expect(!operation.didExecute)
    #expect(operation.errors.count == 1)
    #expect(
      operation.errors.first as? NoFailedDependenciesError == .cancelledDependencies
    )
  }

  @Test func `NoFailedDependencies gives one error for a mixture of cancelled and ok dependencies`()
    async throws
  {
    let cancelled = TestOperation()
    cancelled.cancel()
    let ok = TestOperation()
    let operation = TestOperation()
    operation.addDependency(cancelled)
    operation.addDependency(ok)
    operation.addCondition(NoFailedDependenciesCondition())
    [cancelled, ok, operation].enqueue()
    try? await operation.untilFinished()
    #expect(!operation.didExecute)
    #expect(operation.errors.count == 1)
  }

  @Test func `NoFailedDependencies fails for a dependency with errors`() async throws {
    let failed = TestOperation(error: TestError())
    let operation = TestOperation()
    operation.addDependency(failed)
    operation.addCondition(NoFailedDependenciesCondition())
    [failed, operation].enqueue()
    try? await operation.untilFinished()
    #expect(!operation.didExecute)
    #expect(operation.errors.count == 1)
    #expect(operation.errors.first as? NoFailedDependenciesError == .failedDependencies)
  }

  @Test func `NoFailedDependencies fails for a group dependency with a failed child`() async throws
  {
    let group = GroupOperation(operations: TestOperation(error: TestError()), TestOperation())
    let operation = TestOperation()
    operation.addDependency(group)
    operation.addCondition(NoFailedDependenciesCondition())
    [group, operation].enqueue()
    try? await operation.untilFinished()
    #expect(!operation.didExecute)
    #expect(operation.errors.count == 1)
    #expect(operation.errors.first as? NoFailedDependenciesError == .failedDependencies)
  }

  // MARK: - Cancellation, completion blocks and dependencies

  @Test func `A dependency cancelled before it is enqueued does not stop its dependent`()
    async throws
  {
    let dependency = TestOperation()
    dependency.cancel()
    let operation = TestOperation()
    operation.addDependency(dependency)
    [dependency, operation].enqueue()
    try await operation.untilFinished()
    #expect(!dependency.didExecute)
    #expect(operation.didExecute)
  }

  @Test
  func `Operations with a failing condition run their completion blocks but never their body`()
    async throws
  {
    let count = 8_500
    let completions = Latch()
    let bodies = Latch()
    let queue = OperationQueue()
    let operations = (0..<count).map { _ in
      let operation = BlockProcedure { bodies.arrive() }
      operation.addCondition(BlockCondition { false })
      operation.completionBlock = { completions.arrive() }
      return operation
    }
    operations.enqueue(on: queue)
    await completions.wait(for: count)
    #expect(bodies.count == 0)
    #expect(operations.allSatisfy { $0.errors.first is BlockConditionFailed })
  }

  @Test func `Dependent operations always run on a serial queue`() async throws {
    let iterations = 1_000
    let firsts = Latch()
    let seconds = Latch()
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    var last: Foundation.Operation?
    for _ in 0..<iterations {
      let first = BlockProcedure { firsts.arrive() }
      let second = BlockProcedure { seconds.arrive() }
      second.addDependency(first)
      queue.addOperation(second)
      queue.addOperation(first)
      last = second
    }
    try await last?.untilFinished()
    await seconds.wait(for: iterations)
    #expect(firsts.count == iterations)
    #expect(seconds.count == iterations)
  }
}

/// A condition whose dependency logs its name, optionally exclusive (its category is its type).
struct LoggingDependencyCondition: OperationCondition {
  let name: String
  let log: EventLog
  var isExclusive = false

  var isMutuallyExclusive: Bool { self.isExclusive }

  func dependency(for operation: ConcurrentOperation) -> Foundation.Operation? {
    let log = self.log
    let name = self.name
    let dependency = Foundation.BlockOperation { log.append(name) }
    dependency.name = name
    return dependency
  }

  func evaluate(
    for operation: ConcurrentOperation,
    completion: @escaping @Sendable (OperationConditionResult) -> Void
  ) {
    completion(.satisfied)
  }
}

/// Enters a probe when it executes, waits for a gate, then exits and finishes.
final class ProbedOperation: ConcurrentOperation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; the stored properties are
  // `let`s of `Sendable` types.
  private let index: Int
  private let probe: ConcurrencyProbe
  private let gate: Gate
  private let entered: Latch

  init(index: Int, probe: ConcurrencyProbe, gate: Gate, entered: Latch) {
    self.index = index
    self.probe = probe
    self.gate = gate
    self.entered = entered
    super.init()
  }

  override func execute() {
    self.probe.enter(self.index)
    self.entered.arrive()
    Task {
      await self.gate.wait()
      self.probe.exit(self.index)
      self.finish()
    }
  }
}
