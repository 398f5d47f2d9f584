@_spi(Warnings) import OperationCore
@_spi(Warnings) import OperationGraph
import Testing

@Suite struct `OperationWarning+Work tests` {
  @Test func `Warnings Name The Bad Value`() {
    #expect(OperationWarning.retryStrategyNegativeTimes(-3).message.contains("(got: -3)"))
    #expect(OperationWarning.repeatingMaxCountNotPositive(0).message.contains("maxCount of 0"))
  }

  @Test func `Each Value Gives Its Own Warning`() {
    #expect(
      OperationWarning.retryStrategyNegativeTimes(-1)
        != OperationWarning.retryStrategyNegativeTimes(-2)
    )
    #expect(
      OperationWarning.repeatingMaxCountNotPositive(0)
        != OperationWarning.repeatingMaxCountNotPositive(-1)
    )
  }
}
