import Operation
import OperationSynchronization
import Testing

extension OperationContext {
  @ContextEntry var macroTestCount = 1
  @ContextEntry var macroTestName: String?
  @ContextEntry var macroTestLabel: String! = "label"
  @ContextEntry fileprivate var macroTestLimit: Int = 5
}

private struct Doubling: OperationRequest, Sendable {
  let number: Int

  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, Never>
  ) async -> Int {
    continuation.yield(self.number)
    return self.number * 2 * context.macroTestCount
  }
}

@Suite struct RunMacroUsageTests {
  @Test func `Run Runs With A Fresh Context`() async {
    let value = await #run(Doubling(number: 2))
    #expect(value == 4)
  }

  @Test func `Run Runs With The Given Context`() async {
    var context = OperationContext()
    context.macroTestCount = 10
    let value = await #run(Doubling(number: 2), context: context)
    #expect(value == 40)
  }

  @Test func `Run Sends Yields To The Given Continuation`() async {
    let yields = Lock<[Int]>([])
    let value = await #run(
      Doubling(number: 3),
      context: OperationContext(),
      continuation: OperationContinuation { result, _ in
        if case .success(let value) = result { yields.withLock { $0.append(value) } }
      }
    )
    #expect(value == 6)
    #expect(yields.withLock { $0 } == [3])
  }
}

@Suite struct ContextEntryUsageTests {
  @Test func `Context Entries Read Their Defaults`() {
    let context = OperationContext()
    #expect(context.macroTestCount == 1)
    #expect(context.macroTestName == nil)
    #expect(context.macroTestLabel == "label")
    #expect(context.macroTestLimit == 5)
  }

  @Test func `Context Entries Store What Is Set`() {
    var context = OperationContext()
    context.macroTestCount = 2
    context.macroTestName = "name"
    context.macroTestLabel = nil
    #expect(context.macroTestCount == 2)
    #expect(context.macroTestName == "name")
    #expect(context.macroTestLabel == nil)
    #expect(OperationContext().macroTestCount == 1)
  }
}
