import Foundation
import OperationGraph
import OperationQueueCompat
import Testing

@Suite struct `ProgressReporter+Foundation tests` {
  @Test func `Mirrors Units And Fraction From The Start`() {
    let reporter = ProgressReporter(totalUnitCount: 40)
    reporter.advance(by: 10)
    let progress = reporter.foundationProgress()
    #expect(progress.totalUnitCount == 40)
    #expect(progress.completedUnitCount == 10)
    #expect(progress.fractionCompleted == 0.25)
  }

  @Test func `Follows Every Change`() {
    let reporter = ProgressReporter(totalUnitCount: 10)
    let progress = reporter.foundationProgress()
    reporter.advance(by: 3)
    #expect(progress.completedUnitCount == 3)
    reporter.totalUnitCount = 20
    #expect(progress.totalUnitCount == 20)
    #expect(progress.fractionCompleted == 0.15)
  }

  @Test func `Scales Partly Done Children Onto Its Units`() {
    let reporter = ProgressReporter(totalUnitCount: 3)
    let progress = reporter.foundationProgress()
    let child = reporter.makeChild(pendingUnitCount: 1)
    child.report(fractionCompleted: 0.5)
    #expect(abs(progress.fractionCompleted - reporter.progress.fractionCompleted) < 1e-6)
    #expect(abs(progress.fractionCompleted - 0.5 / 3) < 1e-6)
  }

  @Test func `Is Finished After Complete`() {
    let reporter = ProgressReporter(totalUnitCount: 7)
    let progress = reporter.foundationProgress()
    let child = reporter.makeChild(pendingUnitCount: 7)
    child.report(fractionCompleted: 0.3)
    reporter.complete()
    #expect(progress.completedUnitCount == 7)
    #expect(progress.totalUnitCount == 7)
    #expect(progress.fractionCompleted == 1)
    #expect(progress.isFinished)
  }

  @Test func `Stops Following Once The Reporter Finished`() {
    let reporter = ProgressReporter(totalUnitCount: 2)
    _ = reporter.foundationProgress()
    #expect(reporter.subscriberCountForTesting == 1)
    reporter.complete()
    #expect(reporter.subscriberCountForTesting == 0)
  }

  @Test func `Cancelling The Foundation Progress Does Nothing To The Reporter`() {
    let reporter = ProgressReporter(totalUnitCount: 4)
    let progress = reporter.foundationProgress()
    progress.cancel()
    reporter.advance(by: 2)
    #expect(progress.isCancelled)
    #expect(reporter.progress.completedUnitCount == 2)
    #expect(progress.completedUnitCount == 2)
  }

  @Test func `A Graph's Progress Is Watched As A Sequence And As A Foundation Progress`()
    async throws
  {
    let steps = WorkGraph(maxConcurrentNodes: 1)
    for step in 1...4 {
      try steps.add(name: "Step \(step)") { _ in step }
    }
    let foundation = steps.progress.foundationProgress()
    let watcher = Task {
      var fractions = [Double]()
      for await progress in steps.progress.updates {
        fractions.append(progress.fractionCompleted)
      }
      return fractions
    }
    await steps.run()
    #expect(await watcher.value.last == 1.0)
    #expect(foundation.fractionCompleted == 1.0)
  }
}
