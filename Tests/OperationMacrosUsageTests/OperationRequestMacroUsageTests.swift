import Operation
import OperationSynchronization
import Testing

@OperationRequest
private func macroSum(_ a: Int, to b: Int, c: Int = 3) -> Int {
  a + b + c
}

@OperationRequest
private func macroStream(
  isolation: isolated (any Actor)? = #isolation,
  context: OperationContext,
  continuation: OperationContinuation<Int, any Error>
) async throws -> Int {
  continuation.yield(context.macroTestCount)
  return context.macroTestCount + 1
}

private struct MacroFailure: Error, Equatable {}

@OperationRequest
private func macroFail() throws(MacroFailure) {
  throw MacroFailure()
}

@OperationRequest
private func macroEcho<T: Sendable>(_ value: T) async -> sending T {
  value
}

private struct MacroAPI: Hashable {
  let base: Int

  @OperationRequest
  func add(_ value: Int) async throws -> Int {
    self.base + value
  }

  @OperationRequest
  static func answer() -> Int {
    42
  }
}

private actor MacroCounter {
  var count = 0

  @OperationRequest
  func increment() -> Int {
    self.count += 1
    return self.count
  }
}

@Suite struct OperationRequestMacroUsageTests {
  @Test func `A Free Function Runs With Its Arguments`() async {
    #expect(await #run($macroSum(1, to: 2)) == 6)
    #expect(await #run($macroSum(1, to: 2, c: 0)) == 3)
    #expect($macroSum(1, to: 2)._debugTypeName == "macroSum")
  }

  @Test func `The Reserved Parameters Receive The Run's Values`() async throws {
    var context = OperationContext()
    context.macroTestCount = 4
    let yields = Lock<[Int]>([])
    let value = try await #run(
      $macroStream,
      context: context,
      continuation: OperationContinuation { result, _ in
        if case .success(let value) = result { yields.withLock { $0.append(value) } }
      }
    )
    #expect(value == 5)
    #expect(yields.withLock { $0 } == [4])
  }

  @Test func `A Typed Error Is Thrown As Is`() async {
    await #expect(throws: MacroFailure()) {
      try await #run($macroFail)
    }
  }

  @Test func `A Generic Function Runs`() async {
    #expect(await #run($macroEcho("a")) == "a")
  }

  @Test func `Methods Of Types And Actors Run`() async throws {
    #expect(try await #run(MacroAPI(base: 10).$add(5)) == 15)
    #expect(await #run(MacroAPI.$answer) == 42)
    #expect(MacroAPI.$answer._debugTypeName == "MacroAPI.answer")
    let counter = MacroCounter()
    #expect(await #run(counter.$increment) == 1)
    #expect(await #run(counter.$increment) == 2)
  }
}

@MainActor
private final class MacroModel {
  var loads = 0

  @OperationRequest
  func load() -> Int {
    self.loads += 1
    return self.loads
  }
}

@Suite struct OperationRequestMacroIsolationTests {
  @Test func `A Main Actor Method Runs On The Main Actor`() async {
    let model = MacroModel()
    #expect(await #run(model.$load) == 1)
    #expect(await model.loads == 1)
  }
}
