import OperationCore
import OperationGraph
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `Map tests` {
  // PeakOperation MapTests.testMapOperationOverrideMapValueSuccess and ResultTests.testInput.
  @Test func `Transforms The Value`() async throws {
    let log = ChainLog()
    let negated = Step.succeeding("flag", true, log: log).map { !$0 }
    #expect(try await OperationRunner(operation: negated).run() == false)
  }

  // PeakOperation ResultTests.testInjectionPassing: true → negate → toString.
  @Test func `Maps Chain Into Each Other`() async throws {
    let log = ChainLog()
    let text = Step.succeeding("flag", true, log: log).map { !$0 }.map { String($0) }
    #expect(try await OperationRunner(operation: text).run() == "false")
  }

  // PeakOperation MapTests.testMapOperationOverrideMapValueFailure.
  @Test func `A Failure Passes Through Unchanged Without Calling The Transform`() async {
    let log = ChainLog()
    let calls = Lock(0)
    let mapped = Step<Bool, StepError>.failing("flag", log: log).map { value in
      calls.withLock { $0 += 1 }
      return !value
    }
    await #expect(throws: StepError(name: "flag")) {
      try await OperationRunner(operation: mapped).run()
    }
    #expect(calls.withLock { $0 } == 0)
  }

  @Test func `A Transform May Throw The Typed Failure`() async {
    let log = ChainLog()
    let mapped = Step.succeeding("number", 3, log: log).map { value throws(StepError) in
      guard value.isMultiple(of: 2) else { throw StepError(name: "odd") }
      return value
    }
    #expect(failureType(of: mapped) == ObjectIdentifier(StepError.self))
    await #expect(throws: StepError(name: "odd")) {
      try await OperationRunner(operation: mapped).run()
    }
  }

  @Test func `A Transform That Throws Any Error Widens The Failure`() async {
    struct Odd: Error {}
    let log = ChainLog()
    let mapped = Step.succeeding("number", 3, log: log).map { value in
      if value == 3 { throw Odd() }
      return value
    }
    #expect(failureType(of: mapped) == ObjectIdentifier((any Error).self))
    await #expect(throws: Odd.self) { try await OperationRunner(operation: mapped).run() }
  }

  @Test func `The Same Map At The Same Place Shares A Store`() {
    let client = OperationClient(storeCreator: PlainChainStoreCreator())
    let log = ChainLog()
    let stores = (0..<2).map { _ in
      client.store(for: Step.succeeding("n", 1, log: log).map { $0 + 1 })
    }
    #expect(stores[0] === stores[1])
  }

  @Test func `Maps At Different Places Have Different Paths`() {
    let log = ChainLog()
    let step = Step.succeeding("n", 1, log: log)
    let first = step.map { $0 + 1 }
    let second = step.map { $0 + 1 }
    #expect(first.path != second.path)
    #expect(step.path.isPrefix(of: first.path))
    let marker = marker(at: 2, of: first.path)
    #expect(marker?.kind == .map)
    #expect(marker?.fileID == #fileID)
    #expect(marker?.line != nil)
  }

  @Test func `A Mapped Query Works Through A Client Store`() async throws {
    let client = OperationClient(storeCreator: PlainChainStoreCreator())
    let log = ChainLog()
    let store = client.store(for: Step.succeeding("n", 20, log: log).map { $0 + 1 })
    #expect(try await store.fetch() == 21)
  }

  @Test func `A Cancelled Task Does Not Call The Transform`() async {
    let log = ChainLog()
    var held = HeldStep(name: "a", log: log)
    held.ignoresCancellation = true
    let calls = Lock(0)
    let mapped = held.map { value in
      calls.withLock { $0 += 1 }
      return value
    }
    let task = Task { try await OperationRunner(operation: mapped).run() }
    await held.started.wait()
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(calls.withLock { $0 } == 0)
  }
}
