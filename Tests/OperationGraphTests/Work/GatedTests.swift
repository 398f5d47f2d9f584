import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `Gated tests` {
  // MARK: - Operations GatedOperationTests

  @Test func `A Closed Gate Succeeds With Nil Without Running The Request`() async throws {
    let query = WorkScriptedQuery.failing(untilRun: 1)
    let runner = OperationRunner(operation: query.gated { false })
    #expect(try await runner.run() == nil)
    #expect(query.log.runs == 0)
  }

  @Test func `An Open Gate Runs The Request`() async throws {
    let query = WorkScriptedQuery.failing(untilRun: 1)
    let runner = OperationRunner(operation: query.gated { true })
    #expect(try await runner.run() == 1)
    #expect(query.log.runs == 1)
  }

  // MARK: - Gates

  @Test func `The Gate Reads The Run's Context`() async throws {
    let query = WorkScriptedQuery.failing(untilRun: 1)
    var runner = OperationRunner(operation: query.gated { context in context.isWorkEnabled })
    #expect(try await runner.run() == nil)
    runner.context.isWorkEnabled = true
    #expect(try await runner.run() == 1)
    #expect(query.log.runs == 1)
  }

  @Test func `The Gate Is Asked Before Every Run`() async throws {
    let answers = Answers([true, false, true])
    let query = WorkScriptedQuery.failing(untilRun: 1)
    let runner = OperationRunner(operation: query.gated { await answers.next() })
    #expect(try await runner.run() == 1)
    #expect(try await runner.run() == nil)
    #expect(try await runner.run() == 2)
    #expect(query.log.runs == 2)
  }

  @Test func `An Open Gate Passes The Request's Error On`() async {
    let runner = OperationRunner(operation: WorkScriptedQuery.failing(untilRun: nil).gated { true })
    await #expect(throws: WorkError(run: 1)) { try await runner.run() }
  }

  @Test func `Yields Reach The Continuation As Optionals`() async throws {
    let yields = WorkYields<Int?, any Error>()
    let runner = OperationRunner(operation: YieldingRequest().gated { true })
    #expect(try await runner.run(with: yields.continuation) == 2)
    #expect(yields.all.map { try? $0.get() } == [.some(1)])
  }

  // MARK: - A value for a closed gate

  @Test func `Otherwise Gives The Value Of A Closed Gate`() async throws {
    let query = WorkScriptedQuery.failing(untilRun: 1)
    let runner = OperationRunner(operation: query.gated(otherwise: -1) { false })
    #expect(try await runner.run() == -1)
    #expect(query.log.runs == 0)
  }

  @Test func `A Store Holds A Query Gated With A Value`() async throws {
    let query = WorkScriptedQuery.failing(untilRun: 1)
    let gated = query.gated(otherwise: -1) { context in context.isWorkEnabled }
    #expect(gated.path == query.path)
    let store = OperationStore.detached(query: gated, initialValue: nil)
    #expect(try await store.fetch() == -1)
    store.context.isWorkEnabled = true
    #expect(try await store.fetch() == 1)
    #expect(store.currentValue == 1)
  }

  @Test func `A Void Request Gated With Unit Finishes Either Way`() async {
    let ran = WorkRecorder<Int>()
    let request = BlockRequest { ran.append(1) }
    await OperationRunner(operation: request.gated(otherwise: ()) { false }).run()
    await OperationRunner(operation: request.gated(otherwise: ()) { true }).run()
    #expect(ran.all == [1])
  }
}

private actor Answers {
  private var remaining: [Bool]

  init(_ answers: [Bool]) {
    self.remaining = answers
  }

  func next() -> Bool {
    self.remaining.removeFirst()
  }
}

private struct YieldingRequest: OperationRequest, Sendable {
  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    continuation.yield(1)
    return 2
  }
}

extension OperationContext {
  fileprivate var isWorkEnabled: Bool {
    get { self[WorkEnabledKey.self] }
    set { self[WorkEnabledKey.self] = newValue }
  }
}

private enum WorkEnabledKey: OperationContext.Key {
  static let defaultValue = false
}
