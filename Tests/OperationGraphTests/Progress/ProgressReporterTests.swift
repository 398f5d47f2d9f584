import OperationGraph
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `ProgressReporter tests` {
  @Test(
    arguments: [
      (100, 3, [33, 33, 34]),
      (100, 1, [100]),
      (100, 0, []),
      (100, -2, []),
      (10, 4, [2, 2, 2, 4]),
      (2, 3, [0, 0, 2]),
      (0, 2, [0, 0]),
    ] as [(Int64, Int, [Int64])]
  )
  func `Even Shares Give The Remainder To The Last`(total: Int64, count: Int, shares: [Int64]) {
    #expect(ProgressReporter.evenShares(of: total, count: count) == shares)
  }

  @Test func `Starts At Zero Of One Hundred`() {
    let progress = ProgressReporter().progress
    #expect(progress == OperationProgress(completedUnitCount: 0, totalUnitCount: 100))
  }

  @Test func `Advance Adds Units And Clamps At The Total`() {
    let reporter = ProgressReporter(totalUnitCount: 5)
    reporter.advance()
    reporter.advance(by: 2)
    #expect(reporter.progress.completedUnitCount == 3)
    reporter.advance(by: 10)
    #expect(reporter.progress.completedUnitCount == 5)
    #expect(reporter.progress.isFinished)
  }

  @Test func `Set Completed Unit Count Clamps To The Range`() {
    let reporter = ProgressReporter(totalUnitCount: 5)
    reporter.setCompletedUnitCount(4)
    #expect(reporter.progress.completedUnitCount == 4)
    reporter.setCompletedUnitCount(-1)
    #expect(reporter.progress.completedUnitCount == 0)
    reporter.setCompletedUnitCount(9)
    #expect(reporter.progress.completedUnitCount == 5)
  }

  @Test func `Report Fraction Sets Completed Units Rounded Down`() {
    let reporter = ProgressReporter(totalUnitCount: 10)
    reporter.report(fractionCompleted: 0.37)
    #expect(reporter.progress.completedUnitCount == 3)
    reporter.report(fractionCompleted: 2)
    #expect(reporter.progress.completedUnitCount == 10)
    reporter.report(fractionCompleted: .nan)
    #expect(reporter.progress.completedUnitCount == 0)
  }

  @Test func `The Total Can Grow While Running And Clamps Completed When It Shrinks`() {
    let reporter = ProgressReporter(totalUnitCount: 4)
    reporter.advance(by: 4)
    #expect(reporter.progress.isFinished)
    reporter.totalUnitCount = 8
    #expect(reporter.progress == OperationProgress(completedUnitCount: 4, totalUnitCount: 8))
    reporter.totalUnitCount = 2
    #expect(reporter.progress == OperationProgress(completedUnitCount: 2, totalUnitCount: 2))
    reporter.totalUnitCount = -3
    #expect(reporter.totalUnitCount == 0)
  }

  @Test func `Complete Sets Completed To Total And Is Idempotent`() {
    let reporter = ProgressReporter(totalUnitCount: 6)
    reporter.complete()
    reporter.complete()
    #expect(reporter.progress == OperationProgress(completedUnitCount: 6, totalUnitCount: 6))
  }

  @Test func `A Child Counts Its Fraction Of Its Pending Units`() {
    let reporter = ProgressReporter(totalUnitCount: 100)
    let child = reporter.makeChild(pendingUnitCount: 50, totalUnitCount: 4)
    child.advance(by: 1)
    #expect(reporter.progress.completedUnitCount == 0)
    #expect(reporter.progress.fractionCompleted == 0.125)
  }

  @Test func `Nested Children Add Up Their Fractions`() {
    let root = ProgressReporter(totalUnitCount: 10)
    let child = root.makeChild(pendingUnitCount: 4, totalUnitCount: 2)
    let grandchild = child.makeChild(pendingUnitCount: 1, totalUnitCount: 10)
    grandchild.advance(by: 5)
    #expect(child.progress.fractionCompleted == 0.25)
    #expect(root.progress.fractionCompleted == 0.1)
    child.advance()
    #expect(child.progress.fractionCompleted == 0.75)
    #expect(root.progress.fractionCompleted == 0.3)
    #expect(root.progress.completedUnitCount == 0)
  }

  @Test func `Completing A Child Adds Its Pending Units To The Parent Once`() {
    let root = ProgressReporter(totalUnitCount: 10)
    let child = root.makeChild(pendingUnitCount: 3)
    child.report(fractionCompleted: 0.5)
    child.complete()
    child.complete()
    #expect(root.progress == OperationProgress(completedUnitCount: 3, totalUnitCount: 10))
    #expect(root.unfinishedChildCountForTesting == 0)
  }

  @Test func `A Child That Reaches Its Total Is Folded Into Its Parent`() {
    let root = ProgressReporter(totalUnitCount: 10)
    let child = root.makeChild(pendingUnitCount: 5, totalUnitCount: 2)
    child.advance(by: 2)
    #expect(root.progress.completedUnitCount == 5)
    #expect(root.unfinishedChildCountForTesting == 0)
    child.setCompletedUnitCount(0)
    #expect(root.progress.completedUnitCount == 5)
  }

  @Test func `Completion Propagates Through Every Level`() {
    let root = ProgressReporter(totalUnitCount: 2)
    let child = root.makeChild(pendingUnitCount: 2, totalUnitCount: 1)
    let grandchild = child.makeChild(pendingUnitCount: 1, totalUnitCount: 0)
    grandchild.complete()
    #expect(child.progress.isFinished)
    #expect(root.progress.isFinished)
    #expect(root.progress.fractionCompleted == 1)
  }

  @Test func `Ten Thousand Finished Children Leave Nothing Behind`() {
    let root = ProgressReporter(totalUnitCount: 10_000)
    let children = (0..<10_000).map { _ in root.makeChild(pendingUnitCount: 1) }
    #expect(root.unfinishedChildCountForTesting == 10_000)
    for child in children {
      child.complete()
    }
    #expect(root.unfinishedChildCountForTesting == 0)
    #expect(root.progress.isFinished)
    #expect(root.progress.fractionCompleted == 1)
  }

  @Test func `On Change Is Called After Each Change But Not At Once`() {
    let reporter = ProgressReporter(totalUnitCount: 4)
    let received = Lock([Int64]())
    let subscription = reporter.onChange { progress in
      received.withLock { $0.append(progress.completedUnitCount) }
    }
    reporter.advance()
    reporter.advance()
    reporter.advance(by: 0)
    subscription.cancel()
    reporter.advance()
    #expect(received.withLock { $0 } == [1, 2])
    #expect(reporter.subscriberCountForTesting == 0)
  }

  @Test func `Releasing The Subscription Ends The Calls`() {
    let reporter = ProgressReporter(totalUnitCount: 4)
    let count = Lock(0)
    do {
      _ = reporter.onChange { _ in count.withLock { $0 += 1 } }
    }
    reporter.advance()
    #expect(count.withLock { $0 } == 0)
  }

  @Test func `A Child's Change Reaches The Parent's Handlers`() {
    let root = ProgressReporter(totalUnitCount: 2)
    let child = root.makeChild(pendingUnitCount: 2, totalUnitCount: 4)
    let fractions = Lock([Double]())
    let subscription = root.onChange { progress in
      fractions.withLock { $0.append(progress.fractionCompleted) }
    }
    child.advance()
    child.complete()
    #expect(fractions.withLock { $0 } == [0.25, 1])
    _ = subscription
  }

  @Test func `Handlers Run With No Lock Held`() {
    let root = ProgressReporter(totalUnitCount: 2)
    let child = root.makeChild(pendingUnitCount: 1)
    let grandchild = child.makeChild(pendingUnitCount: 1)
    let checks = Lock([Bool]())
    let record: @Sendable (OperationProgress) -> Void = { _ in
      let isLocked =
        root.isLockedForTesting || child.isLockedForTesting || grandchild.isLockedForTesting
        || LibraryLocks.areHeldByCurrentThread
      checks.withLock { $0.append(isLocked) }
    }
    let subscriptions = [
      root.onChange(record), child.onChange(record), grandchild.onChange(record),
    ]
    grandchild.advance(by: 30)
    grandchild.complete()
    #expect(checks.withLock { $0 } == [Bool](repeating: false, count: 6))
    _ = subscriptions
  }

  @Test func `A Change Under A Store Lock Reaches Handlers After Its Release`() {
    let reporter = ProgressReporter(totalUnitCount: 2)
    let storeLock = RecursiveLock(0)
    let calls = Lock([String]())
    let subscription = reporter.onChange { _ in
      calls.withLock { $0.append("handler, locked: \(LibraryLocks.areHeldByCurrentThread)") }
    }
    storeLock.withLock { _ in
      reporter.advance()
      calls.withLock { $0.append("end of the locked section") }
    }
    #expect(
      calls.withLock { $0 } == ["end of the locked section", "handler, locked: false"]
    )
    _ = subscription
  }

  @Test func `A Handler May Change The Reporter It Observes`() {
    let reporter = ProgressReporter(totalUnitCount: 3)
    let subscription = reporter.onChange { progress in
      if progress.completedUnitCount == 1 {
        reporter.advance()
      }
    }
    reporter.advance()
    #expect(reporter.progress.completedUnitCount == 2)
    _ = subscription
  }

  @Test func `Concurrent Changes End With The Newest Value`() async {
    let root = ProgressReporter(totalUnitCount: 1_000)
    let last = Lock<OperationProgress?>(nil)
    let subscription = root.onChange { progress in last.withLock { $0 = progress } }
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<10 {
        group.addTask {
          for _ in 0..<100 {
            let child = root.makeChild(pendingUnitCount: 1, totalUnitCount: 2)
            child.advance()
            child.advance()
          }
        }
      }
    }
    #expect(root.progress.isFinished)
    #expect(last.withLock { $0 }?.isFinished == true)
    _ = subscription
  }
}

extension `ProgressReporter tests` {
  @Test func `Concurrent Increases Of The Total All Count`() async {
    let reporter = ProgressReporter(totalUnitCount: 0)
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask {
          for _ in 0..<1_000 {
            reporter.increaseTotalUnitCount(by: 1)
          }
        }
      }
    }
    #expect(reporter.totalUnitCount == 8_000)
    reporter.increaseTotalUnitCount(by: -10_000)
    #expect(reporter.totalUnitCount == 0)
  }
}
