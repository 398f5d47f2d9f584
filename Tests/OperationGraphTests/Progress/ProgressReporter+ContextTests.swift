import OperationGraph
import Testing

@Suite struct `ProgressReporter+Context tests` {
  @Test func `No Reporter By Default`() {
    #expect(OperationContext().progressReporter == nil)
  }

  @Test func `Stores The Reporter It Is Given`() {
    let reporter = ProgressReporter()
    var context = OperationContext()
    context.progressReporter = reporter
    #expect(context.progressReporter === reporter)
  }
}
