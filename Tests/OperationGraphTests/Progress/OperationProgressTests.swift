import OperationGraph
import Testing

@Suite struct `OperationProgress tests` {
  @Test func `Fraction Is Completed Over Total`() {
    let progress = OperationProgress(completedUnitCount: 25, totalUnitCount: 200)
    #expect(progress.fractionCompleted == 0.125)
    #expect(!progress.isFinished)
  }

  @Test func `Fraction Is Zero When The Total Is Zero`() {
    let progress = OperationProgress(completedUnitCount: 0, totalUnitCount: 0)
    #expect(progress.fractionCompleted == 0)
    #expect(!progress.isFinished)
  }

  @Test func `Is Finished When Completed Reaches A Positive Total`() {
    #expect(OperationProgress(completedUnitCount: 3, totalUnitCount: 3).isFinished)
    #expect(OperationProgress(completedUnitCount: 3, totalUnitCount: 3).fractionCompleted == 1)
  }

  @Test func `Fraction Is Clamped To One`() {
    #expect(OperationProgress(completedUnitCount: 5, totalUnitCount: 3).fractionCompleted == 1)
  }

  @Test func `Description Shows Units And Percentage`() {
    let progress = OperationProgress(completedUnitCount: 1, totalUnitCount: 3)
    #expect(progress.description == "1/3 (33%)")
  }
}
