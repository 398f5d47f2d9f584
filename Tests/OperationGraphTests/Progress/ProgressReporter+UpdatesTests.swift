import OperationGraph
import OperationTestSupport
import Testing

@Suite struct `ProgressReporter+Updates tests` {
  @Test func `Delivers The Current Progress First`() async {
    let reporter = ProgressReporter(totalUnitCount: 10)
    reporter.advance(by: 4)
    var iterator = reporter.updates.makeAsyncIterator()
    #expect(await iterator.next() == OperationProgress(completedUnitCount: 4, totalUnitCount: 10))
  }

  @Test func `Delivers Changes Then Ends After The Finished Value`() async {
    let reporter = ProgressReporter(totalUnitCount: 10)
    var iterator = reporter.updates.makeAsyncIterator()
    #expect(await iterator.next()?.completedUnitCount == 0)
    reporter.advance(by: 5)
    #expect(await iterator.next()?.completedUnitCount == 5)
    reporter.complete()
    let last = await iterator.next()
    #expect(last?.isFinished == true)
    #expect(last?.completedUnitCount == 10)
    #expect(await iterator.next() == nil)
    #expect(reporter.subscriberCountForTesting == 0)
  }

  @Test func `A Slow Consumer Gets The Newest Value Only`() async {
    let reporter = ProgressReporter(totalUnitCount: 10)
    var iterator = reporter.updates.makeAsyncIterator()
    reporter.advance(by: 1)
    reporter.advance(by: 1)
    reporter.advance(by: 1)
    #expect(await iterator.next()?.completedUnitCount == 3)
  }

  @Test func `A Finished Reporter Delivers Its Progress Then Ends`() async {
    let reporter = ProgressReporter(totalUnitCount: 1)
    reporter.complete()
    var values = [OperationProgress]()
    for await progress in reporter.updates {
      values.append(progress)
    }
    #expect(values == [OperationProgress(completedUnitCount: 1, totalUnitCount: 1)])
  }

  @Test func `Each Iteration Starts From The Progress At That Time`() async {
    let reporter = ProgressReporter(totalUnitCount: 10)
    let updates = reporter.updates
    reporter.advance(by: 2)
    var first = updates.makeAsyncIterator()
    reporter.advance(by: 3)
    var second = updates.makeAsyncIterator()
    #expect(await first.next()?.completedUnitCount == 5)
    #expect(await second.next()?.completedUnitCount == 5)
    reporter.advance(by: 1)
    #expect(await first.next()?.completedUnitCount == 6)
    #expect(await second.next()?.completedUnitCount == 6)
  }

  @Test func `Cancelling The Consumer Ends The Sequence`() async {
    let reporter = ProgressReporter(totalUnitCount: 10)
    let received = Gate()
    let task = Task {
      var iterator = reporter.updates.makeAsyncIterator()
      let first = await iterator.next()
      received.open()
      let second = await iterator.next()
      return (first, second)
    }
    await received.wait()
    task.cancel()
    let (first, second) = await task.value
    #expect(first?.completedUnitCount == 0)
    #expect(second == nil)
    #expect(reporter.subscriberCountForTesting == 0)
  }
}
