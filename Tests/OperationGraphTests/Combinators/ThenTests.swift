import OperationCore
import OperationGraph
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `Then tests` {
  @Test func `Runs Both In Order And Returns The Second Value`() async throws {
    let log = ChainLog()
    let chain = Step.succeeding("a", 1, log: log).then(Step.succeeding("b", "two", log: log))
    let value = try await OperationRunner(operation: chain).run()
    #expect(value == "two")
    #expect(log.runs == ["a", "b"])
  }

  @Test func `A Failure Short Circuits The Next Request`() async {
    let log = ChainLog()
    let chain = Step<Int, StepError>.failing("a", log: log)
      .then(Step.succeeding("b", 2, log: log))
    await #expect(throws: StepError(name: "a")) {
      try await OperationRunner(operation: chain).run()
    }
    #expect(log.runs == ["a"])
  }

  @Test func `Keeps The Typed Failure When Both Parts Share It`() {
    let log = ChainLog()
    let chain = Step.succeeding("a", 1, log: log).then(Step.succeeding("b", 2, log: log))
    #expect(failureType(of: chain) == ObjectIdentifier(StepError.self))
  }

  @Test func `Widens Different Failures To Any Error`() async {
    let log = ChainLog()
    let untyped = Step<Int, any Error>(name: "b", result: .failure(StepError(name: "b")), log: log)
    let chain = Step.succeeding("a", 1, log: log).then(untyped)
    #expect(failureType(of: chain) == ObjectIdentifier((any Error).self))
    await #expect(throws: StepError(name: "b")) {
      try await OperationRunner(operation: chain).run()
    }
  }

  @Test func `Forwards What The Second Part Yields Only`() async throws {
    let log = ChainLog()
    var first = Step.succeeding("a", 1, log: log)
    first.yields = [10]
    var second = Step.succeeding("b", 2, log: log)
    second.yields = [20, 21]
    let yielded = Lock([Int]())
    let continuation = OperationContinuation<Int, StepError> { result, _ in
      if case .success(let value) = result {
        yielded.withLock { $0.append(value) }
      }
    }
    _ = try await OperationRunner(operation: first.then(second)).run(with: continuation)
    #expect(yielded.withLock { $0 } == [20, 21])
  }

  @Test func `Setup Prepares The Context With Each Part In Order`() {
    let log = ChainLog()
    let chain = Step.succeeding("a", 1, log: log).then(Step.succeeding("b", 2, log: log))
    _ = OperationRunner(operation: chain)
    #expect(log.setups == ["a", "b"])
  }

  @Test func `A Part's Retry Applies To That Part Only`() async {
    let log = ChainLog()
    let chain = Step<Int, StepError>.failing("a", log: log).retry(limit: 2)
      .then(Step<Int, StepError>.failing("b", log: log).retry(limit: 1))
      .delayer(.noDelay)
    _ = try? await OperationRunner(operation: chain).run()
    #expect(log.runs == ["a", "a", "a"])

    let always = ChainLog()
    let both = Step<Int, StepError>.failing("a", log: always).retry(limit: 2)
      .then(always: Step<Int, StepError>.failing("b", log: always).retry(limit: 1))
      .delayer(.noDelay)
    _ = try? await OperationRunner(operation: both).run()
    #expect(always.runs == ["a", "a", "a", "b", "b"])
  }

  @Test func `Cancellation After The First Part Stops The Chain`() async {
    let log = ChainLog()
    let held = HeldStep(name: "a", log: log)
    let chain = held.then(Step<Int, any Error>(name: "b", result: .success(2), log: log))
    let task = Task { try await OperationRunner(operation: chain).run() }
    await held.started.wait()
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(log.runs == ["a"])
    #expect(held.sawCancellation.withLock { $0 })
  }

  @Test func `A Task Cancelled During The First Part Does Not Start The Second`() async {
    let log = ChainLog()
    var held = HeldStep(name: "a", log: log)
    held.ignoresCancellation = true
    let chain = held.then(Step<Int, any Error>(name: "b", result: .success(2), log: log))
    let task = Task { try await OperationRunner(operation: chain).run() }
    await held.started.wait()
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(log.runs == ["a"])
  }

  @Test func `Path Is The First Path Then A Marker Then The Second Path`() {
    let log = ChainLog()
    let first = Step.succeeding("a", 1, log: log)
    let second = Step.succeeding("b", 2, log: log)
    let path = first.then(second).path
    #expect(path.count == 4)
    #expect(first.path.isPrefix(of: path))
    #expect(marker(at: 2, of: path)?.kind == .then)
    #expect(marker(at: 2, of: path)?.fileID == nil)
    #expect(path[3] == OperationPath.Element(second.path))
  }

  @Test func `Nested Chains Have Different Paths`() {
    let log = ChainLog()
    let a = Step.succeeding("a", 1, log: log)
    let b = Step.succeeding("b", 2, log: log)
    let c = Step.succeeding("c", 3, log: log)
    #expect(a.then(b).then(c).path != a.then(b.then(c)).path)
    #expect(a.then(b).path != a.then(always: b).path)
  }

  @Test func `Equal Chains Share One Store`() {
    let client = OperationClient(storeCreator: PlainChainStoreCreator())
    let log = ChainLog()
    let first = client.store(
      for: Step.succeeding("a", 1, log: log).then(Step.succeeding("b", 2, log: log))
    )
    let second = client.store(
      for: Step.succeeding("a", 1, log: log).then(Step.succeeding("b", 2, log: log))
    )
    #expect(first === second)
  }

  @Test func `A Prefix Search For The First Part Finds The Chain`() {
    let client = OperationClient(storeCreator: PlainChainStoreCreator())
    let log = ChainLog()
    let first = Step.succeeding("a", 1, log: log)
    let chain = first.then(Step.succeeding("b", 2, log: log))
    _ = client.store(for: chain)
    _ = client.store(for: Step.succeeding("other", 1, log: log).then(first))
    #expect(client.stores(matching: first.path).paths == [chain.path])
  }

  @Test func `A Chain Works Through A Client Store`() async throws {
    let client = OperationClient(storeCreator: PlainChainStoreCreator())
    let log = ChainLog()
    let store = client.store(
      for: Step.succeeding("a", 1, log: log).then(Step.succeeding("b", 2, log: log))
    )
    #expect(try await store.fetch() == 2)
    #expect(store.currentValue == 2)
    #expect(log.runs == ["a", "b"])
  }
}
