import OperationCore
import OperationGraph
import OperationQueueCompat
import OperationSynchronization

/// A producer of `Void` that records whether it executed, for groups.
final class TestOperationProducer: ConcurrentOperation, ProducesResult, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; the state lives in a lock.
  private let state = Lock((output: Result<Void, any Error>.failure(ResultError.noResult), runs: 0))

  var output: Result<Void, any Error> {
    get { self.state.withLock { $0.output } }
    set { self.state.withLock { $0.output = newValue } }
  }

  var didExecute: Bool {
    self.state.withLock { $0.runs > 0 }
  }

  override func execute() {
    self.state.withLock {
      $0.runs += 1
      $0.output = .success(())
    }
    self.finish()
  }
}
