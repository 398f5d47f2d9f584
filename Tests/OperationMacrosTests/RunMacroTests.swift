import MacroTesting
import OperationMacros
import Testing

@Suite(.macros(["run": RunMacro.self]))
struct RunMacroTests {
  @Test func `Run Expands To A Runner With The Defaults`() {
    assertMacro {
      """
      let value = try await #run($fetchNumber)
      """
    } expansion: {
      """
      let value = try await OperationCore.OperationRunner(operation: $fetchNumber).run()
      """
    }
  }

  @Test func `Run With A Context Expands To A Runner With That Context`() {
    assertMacro {
      """
      let value = try await #run($fetchNumber, context: context)
      """
    } expansion: {
      """
      let value = try await OperationCore.OperationRunner(operation: $fetchNumber, initialContext: context).run()
      """
    }
  }

  @Test func `Run With A Continuation Passes It To The Runner`() {
    assertMacro {
      """
      let value = try await #run(
        $fetchNumber,
        context: context,
        continuation: OperationContinuation { result, _ in print(result) }
      )
      """
    } expansion: {
      """
      let value = try await OperationCore.OperationRunner(operation: $fetchNumber, initialContext: context).run(with: OperationContinuation { result, _ in
          print(result)
        })
      """
    }
  }
}
