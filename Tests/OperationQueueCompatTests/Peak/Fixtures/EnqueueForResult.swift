import Foundation
import OperationGraph
import OperationQueueCompat

/// Enqueues an operation with its chain and returns its output once its result block has run.
func enqueueForResult<Producer: ProducesResult & Foundation.Operation>(
  _ operation: Producer,
  on queue: OperationQueue = OperationQueue()
) async -> Result<Producer.Output, any Error> where Producer.Output: Sendable {
  await withCheckedContinuation { continuation in
    operation.enqueue(on: queue) { result in
      continuation.resume(returning: result)
    }
  }
}

/// Whether a result is the `ResultError.noResult` failure.
func isNoResult<Value>(_ result: Result<Value, any Error>) -> Bool {
  guard case .failure(let error) = result else { return false }
  return (error as? ResultError) == .noResult
}

struct PeakTestError: Error, Hashable {
  var id = 0
}
