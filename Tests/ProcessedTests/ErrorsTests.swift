import Processed
import Testing

@Suite struct `Errors tests` {
  @Test func `Control Errors Are Equal Values`() {
    #expect(CancelLoadable() == CancelLoadable())
    #expect(ResetLoadable() == ResetLoadable())
    #expect(CancelProcess() == CancelProcess())
    #expect(ResetProcess() == ResetProcess())
    #expect(TimeoutError() == TimeoutError())
  }
}
