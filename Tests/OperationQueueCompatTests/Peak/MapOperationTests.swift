import Foundation
import OperationGraph
import OperationQueueCompat
import Testing

private final class NegateValue: MapOperation<Bool, Bool>, @unchecked Sendable {
  override func map(input: Bool) -> Result<Bool, any Error> {
    .success(!input)
  }
}

private final class NegateResult: MapOperation<Bool, Bool>, @unchecked Sendable {
  override func map(input: Result<Bool, any Error>) -> Result<Bool, any Error> {
    switch input {
    case .success(let value): .success(!value)
    case .failure: .failure(PeakTestError(id: 99))
    }
  }
}

@Suite(.timeLimit(.minutes(1))) struct `MapOperation tests` {
  @Test func `Overriding the value map maps a success`() async throws {
    let result = await enqueueForResult(NegateValue(input: true))
    #expect(try result.get() == false)
  }

  @Test func `Overriding the value map passes a failure on unchanged`() async throws {
    let map = NegateValue()
    map.input = .failure(PeakTestError(id: 1))
    let result = await enqueueForResult(map)
    #expect(throws: PeakTestError(id: 1)) { try result.get() }
  }

  @Test func `Overriding the result map maps a success`() async throws {
    let result = await enqueueForResult(NegateResult(input: true))
    #expect(try result.get() == false)
  }

  @Test func `Overriding the result map maps a failure`() async throws {
    let map = NegateResult()
    map.input = .failure(PeakTestError(id: 1))
    let result = await enqueueForResult(map)
    #expect(throws: PeakTestError(id: 99)) { try result.get() }
  }

  @Test func `Input and output default to no result, and init(input:) presets a success`() throws {
    let map = MapOperation<Int, Int>()
    #expect(isNoResult(map.input))
    #expect(isNoResult(map.output))
    #expect(try MapOperation<Int, Int>(input: 3).input.get() == 3)
  }

  @Test func `The default value map produces no result`() async throws {
    let result = await enqueueForResult(MapOperation<Int, Int>(input: 3))
    #expect(isNoResult(result))
  }
}
