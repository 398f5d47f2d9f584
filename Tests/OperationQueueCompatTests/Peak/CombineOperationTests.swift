import Foundation
import OperationGraph
import OperationQueueCompat
import Testing

@Suite(.timeLimit(.minutes(1))) struct `CombineOperation tests` {
  @Test func `No input is no result`() async throws {
    let result = await enqueueForResult(CombineOperation<Int>())
    #expect(isNoResult(result))
  }

  @Test func `Values come in input order`() async throws {
    let combine = CombineOperation<Int>()
    combine.input = [.success(3), .success(1), .success(2)]
    let result = await enqueueForResult(combine)
    #expect(try result.get() == [3, 1, 2])
  }

  @Test func `Any failure fails with every error`() async throws {
    let combine = CombineOperation<Int>()
    combine.input = [.failure(PeakTestError(id: 1)), .success(1), .failure(PeakTestError(id: 2))]
    let result = await enqueueForResult(combine)
    guard case .failure(CombineOperationError.errors(let errors)) = result else {
      Issue.record("Expected the combined errors, got \(result)")
      return
    }
    #expect(
      errors.compactMap { $0 as? PeakTestError } == [PeakTestError(id: 1), PeakTestError(id: 2)]
    )
  }

  @Test func `Producers that finish in turn combine in finishing order`() async throws {
    let first = BlockResultOperation { "first" }
    let second = BlockResultOperation { "second" }
    second.addDependency(first)
    let combine = [second, first].passesResults(to: CombineOperation<String>())
    let result = await enqueueForResult(combine)
    #expect(try result.get() == ["first", "second"])
  }
}
