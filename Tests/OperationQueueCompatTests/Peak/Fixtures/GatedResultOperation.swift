import Foundation
import OperationCore
import OperationGraph
import OperationQueueCompat
import OperationSynchronization
import OperationTestSupport

/// A producer that opens `started` when it executes, then produces `value` when `release` opens;
/// cancelled while it executes, it finishes at once without a result.
final class GatedResultOperation<Value: Sendable>: ConcurrentOperation, ProducesResult,
  @unchecked Sendable
{
  // NB: `@unchecked Sendable` restates the superclass's conformance; the stored properties are
  // `let`s of `Sendable` types, and the output lives in a lock.
  let started = Gate()
  let release = Gate()
  private let value: Value
  private let storage = Lock<Result<Value, any Error>>(.failure(ResultError.noResult))

  init(value: Value) {
    self.value = value
    super.init()
  }

  var output: Result<Value, any Error> {
    get { self.storage.withLock { $0 } }
    set { self.storage.withLock { $0 = newValue } }
  }

  override func execute() {
    self.started.open()
    Task {
      await self.release.wait()
      self.output = .success(self.value)
      self.finish()
    }
  }

  override func cancel() {
    super.cancel()
    if self.isExecuting {
      self.finish()
    }
  }
}
