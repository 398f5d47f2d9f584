import OperationGraph
import Testing

@Suite struct `OperationChainError tests` {
  @Test func `No Result Carries No Errors And Says What To Do`() {
    let error = OperationChainError.noResult
    #expect(error.errors.isEmpty)
    #expect(error.description.contains("pass at least one request"))
  }

  @Test func `A Combined Failure Carries And Describes Every Error`() {
    let error = OperationChainError.combinedFailure(errors: [
      StepError(name: "a"), StepError(name: "b"),
    ])
    #expect(error.errors.map { $0 as? StepError } == [StepError(name: "a"), StepError(name: "b")])
    #expect(error.description.hasPrefix("2 combined request(s) failed: "))
    #expect(error.description.contains("StepError(name: \"b\")"))
  }
}
