import OperationCore
import Testing

@Suite struct `DisableApplicationActiveRerunning tests` {
  @Test func `Rerunning Is Enabled By Default`() {
    #expect(OperationContext().isApplicationActiveRerunningEnabled)
  }

  @Test(arguments: [false, true])
  func `Writes The Negation To The Context`(isDisabled: Bool) {
    var context = OperationContext()
    TestQuery().disableApplicationActiveRerunning(isDisabled).setup(context: &context)
    #expect(context.isApplicationActiveRerunningEnabled == !isDisabled)
  }

  @Test func `Innermost Modifier Wins`() {
    var context = OperationContext()
    TestQuery().disableApplicationActiveRerunning(false).disableApplicationActiveRerunning()
      .setup(context: &context)
    #expect(context.isApplicationActiveRerunningEnabled)
  }
}
