import Foundation
import OperationCore
import OperationGraph
import OperationQueueCompat
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `Chain progress tests` {
  private func helloWorld() -> BlockMapOperation<String, String> {
    BlockResultOperation { "Hello" }
      .passesResult(to: BlockMapOperation<String, String> { $0.map { $0 + " World!" } })
  }

  // MARK: - PeakOperation ProgressTests

  @Test func `A chain's progress completes, a failing operation included`() async throws {
    let op1 = TestOperation(name: "1")
    let op2 = TestOperation(name: "2")
    let op3 = TestOperation(name: "3", error: TestError())
    let op4 = TestOperation(name: "4")
    op1.then(do: op2).then(do: op3).then(do: op4)
    let progress = op4.chainProgress()
    #expect(progress.totalUnitCount == 100)
    #expect(progress.fractionCompleted == 0)
    op4.enqueue()
    try await op4.untilFinished()
    #expect(op3.failed && op4.didExecute)
    #expect(progress.fractionCompleted == 1)
  }

  @Test func `A group's progress completes`() async throws {
    let group = self.helloWorld().group()
    let progress = group.enqueueWithProgress()
    try await group.untilFinished()
    #expect(progress.fractionCompleted == 1)
  }

  @Test func `A collating group's progress completes`() async throws {
    let group = self.helloWorld().group(collateProgress: true)
    let progress = group.enqueueWithProgress()
    try await group.untilFinished()
    #expect(group.progress.fractionCompleted == 1)
    #expect(progress.fractionCompleted == 1)
  }

  @Test func `Nested collating groups complete their progress`() async throws {
    func chainOfThree() -> TestOperationProducer {
      let a1 = TestOperationProducer()
      let a2 = TestOperationProducer()
      let a3 = TestOperationProducer()
      a1.then(do: a2).then(do: a3)
      return a3
    }
    let a = chainOfThree().group(collateProgress: true)
    let b = chainOfThree().group(collateProgress: true)
    let outer = a.then(do: b).group(collateProgress: true)
    let progress = outer.enqueueWithProgress()
    try await outer.untilFinished()
    #expect(progress.completedUnitCount == progress.totalUnitCount)
    #expect(progress.fractionCompleted == 1)
    #expect(outer.progress.fractionCompleted == 1)
  }

  // MARK: - Shares and partial progress

  @Test func `Each operation is worth its share, the last one the remainder`() {
    let ops = (0..<3).map { TestOperation(name: "\($0)") }
    ops[0].then(do: ops[1]).then(do: ops[2])
    let progress = ops[2].chainProgress()
    var fractions = [Double]()
    for op in ops {
      op.progress.completedUnitCount = 100
      fractions.append(progress.fractionCompleted)
    }
    #expect(fractions.last == 1)
    let steps = zip(fractions, [0] + fractions).map { (($0 - $1) * 100).rounded() }
    #expect(steps.sorted() == [33, 33, 34])
  }

  @Test func `Partial progress of an operation shows in the chain's`() async throws {
    let op = GatedResultOperation(value: 1)
    let progress = op.chainProgress()
    op.enqueue()
    await op.started.wait()
    op.progress.completedUnitCount = 50
    #expect(progress.fractionCompleted == 0.5)
    op.release.open()
    try await op.untilFinished()
    #expect(progress.fractionCompleted == 1)
  }

  @Test func `overallProgress is chainProgress`() async throws {
    let op = TestOperation()
    let progress = op.overallProgress()
    op.progress.completedUnitCount = 25
    #expect(progress.fractionCompleted == 0.25)
  }

  // MARK: - A second chain progress

  @Test func `A second chain progress follows starts and finishes`() async throws {
    let op1 = GatedResultOperation(value: 1)
    let op2 = TestOperation()
    op1.then(do: op2)
    let first = op2.chainProgress()
    let second = op2.chainProgress()
    op2.enqueue()
    await op1.started.wait()
    op1.progress.completedUnitCount = 50
    #expect(first.fractionCompleted == 0.25)
    #expect(second.fractionCompleted == 0)
    op1.release.open()
    try await op2.untilFinished()
    // NB: A stand-in completes once its operation's finishing is over.
    try await op1.untilFinished()
    #expect(first.fractionCompleted == 1)
    #expect(second.fractionCompleted == 1)
  }

  @Test func `A chain progress made after the chain finished is complete`() async throws {
    let op = TestOperation()
    let first = op.chainProgress()
    op.enqueue()
    try await op.untilFinished()
    let second = op.chainProgress()
    #expect(first.fractionCompleted == 1)
    #expect(second.fractionCompleted == 1)
  }

  // MARK: - Enqueueing

  @Test func `enqueueWithProgress with a completion gets the result`() async throws {
    let queue = OperationQueue()
    let (progress, result) = await withCheckedContinuation { continuation in
      let progressBox = ProgressBox()
      progressBox.progress = BlockResultOperation { 7 }.enqueueWithProgress(on: queue) { result in
        continuation.resume(returning: (progressBox, result))
      }
    }
    #expect(try result.get() == 7)
    #expect(progress.progress?.fractionCompleted == 1)
  }

  @Test func `A chain without concurrent operations has an empty progress`() {
    let progress = BlockOperation {}.chainProgress()
    #expect(progress.totalUnitCount == 100)
    #expect(progress.fractionCompleted == 0)
  }

  @Test func `A collating group whose input failed completes its progress`() async throws {
    let inner = TestOperationProducer()
    let group = inner.group(collateProgress: true)
    group.input = .failure(TestError())
    let progress = group.enqueueWithProgress()
    try await group.untilFinished()
    #expect(!inner.didExecute)
    #expect(progress.fractionCompleted == 1)
  }
}

/// Carries a progress out of a continuation's closure.
private final class ProgressBox: @unchecked Sendable {
  // NB: `@unchecked Sendable`: `progress` is set before the operation runs and read after the
  // continuation resumed, which orders the two.
  var progress: Progress?
}
