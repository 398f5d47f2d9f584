import Foundation
import OperationGraph
import OperationQueueCompat
import Testing

@Suite(.timeLimit(.minutes(1))) struct `BlockMapOperation tests` {
  @Test func `The block maps a preset input`() async throws {
    let result = await enqueueForResult(
      BlockMapOperation<Int, String>(input: 2) { $0.map { "\($0 * 2)" } }
    )
    #expect(try result.get() == "4")
  }

  @Test func `The block sees a failed input`() async throws {
    let map = BlockMapOperation<Int, String> { input in
      switch input {
      case .success: .success("value")
      case .failure(let error): .success("failed with \(error)")
      }
    }
    map.input = .failure(PeakTestError(id: 5))
    let result = await enqueueForResult(map)
    #expect(try result.get() == "failed with \(PeakTestError(id: 5))")
  }

  @Test func `Without an input the block gets no result`() async throws {
    let result = await enqueueForResult(BlockMapOperation<Int, Int> { $0 })
    #expect(isNoResult(result))
  }
}
