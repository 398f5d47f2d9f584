import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `BlockRequest tests` {
  // MARK: - Operations BlockOperationTests

  @Test func `The Block Executes`() async {
    let ran = WorkRecorder<Int>()
    let request = BlockRequest {
      ran.append(1)
      return "done"
    }
    #expect(await OperationRunner(operation: request).run() == "done")
    #expect(ran.all == [1])
  }

  @Test func `A Block Request With No Block Succeeds Without Yielding`() async throws {
    let request: BlockRequest<Void, Never> = BlockRequest()
    let yields = Lock(0)
    // NB: A request that never returned would fail this suite's time limit.
    await request.run(
      isolation: nil,
      in: OperationContext(),
      with: OperationContinuation { _, _ in yields.withLock { $0 += 1 } }
    )
    #expect(yields.withLock { $0 } == 0)
    let graph = WorkGraph()
    let node = try graph.add(request)
    let report = await graph.run()
    #expect(report[node].outcome?.isSucceeded == true)
    #expect(report.succeededCount == 1)
  }

  // MARK: - Context, errors and modifiers

  @Test func `The Block Receives The Run's Context`() async {
    var context = OperationContext()
    context.operationRetryIndex = 4
    let request = BlockRequest { context in context.operationRetryIndex }
    #expect(await OperationRunner(operation: request).run(in: context) == 4)
  }

  @Test func `A Typed Error Propagates`() async {
    let request = BlockRequest { () throws(WorkError) -> Int in throw WorkError(run: 1) }
    await #expect(throws: WorkError(run: 1)) { try await OperationRunner(operation: request).run() }
  }

  @Test func `Modifiers Work On A Block`() async throws {
    let log = WorkRunLog()
    let request = BlockRequest { context throws(WorkError) -> Int in
      let run = log.start(context)
      guard run >= 3 else { throw WorkError(run: run) }
      return run
    }
    let runner = OperationRunner(operation: request.retrying(.repeat(times: 5)))
    #expect(try await runner.run() == 3)
  }
}
