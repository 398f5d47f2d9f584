import Operation
import Synchronization
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
  @Test func runsWithTheDefaults() async {
    let value = await #run(Doubling(number: 2))
    #expect(value == 4)
  }

  @Test func runsWithAContext() async {
    var context = OperationContext()
    context.macroTestCount = 10
    let value = await #run(Doubling(number: 2), context: context)
    #expect(value == 40)
  }

  @Test func sendsYieldsToTheContinuation() async {
    let yields = Mutex<[Int]>([])
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
  @Test func readsTheDefaults() {
    let context = OperationContext()
    #expect(context.macroTestCount == 1)
    #expect(context.macroTestName == nil)
    #expect(context.macroTestLabel == "label")
    #expect(context.macroTestLimit == 5)
  }

  @Test func setsValues() {
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
