import OperationCore
import Testing

@Suite struct `EvictWhen tests` {
  @Test func `Stores Are Evictable On Warning And Critical By Default`() {
    #expect(OperationContext().evictableMemoryPressure == [.warning, .critical])
    #expect(OperationContext().evictableMemoryPressure == .defaultEvictable)
  }

  @Test(arguments: [MemoryPressure(), .critical, .all])
  func `Evict When Sets The Context`(pressure: MemoryPressure) {
    let runner = OperationRunner(operation: TestQuery().evictWhen(pressure: pressure))
    #expect(runner.context.evictableMemoryPressure == pressure)
  }

  @Test func `Innermost Evict When Wins`() {
    let runner = OperationRunner(
      operation: TestQuery().evictWhen(pressure: []).evictWhen(pressure: .all)
    )
    #expect(runner.context.evictableMemoryPressure == [])
  }
}
