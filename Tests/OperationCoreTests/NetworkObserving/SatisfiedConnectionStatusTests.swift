import OperationCore
import Testing

@Suite struct `SatisfiedConnectionStatus tests` {
  @Test func `Defaults To Connected`() {
    #expect(OperationContext().satisfiedConnectionStatus == .connected)
  }

  @Test func `Satisfied Connection Status Modifier Writes The Context`() {
    var context = OperationContext()
    TestQuery().satisfiedConnectionStatus(.requiresConnection).setup(context: &context)
    #expect(context.satisfiedConnectionStatus == .requiresConnection)
  }

  @Test func `Innermost Satisfied Connection Status Wins`() {
    var context = OperationContext()
    TestQuery().satisfiedConnectionStatus(.disconnected)
      .satisfiedConnectionStatus(.requiresConnection)
      .setup(context: &context)
    #expect(context.satisfiedConnectionStatus == .disconnected)
  }
}
