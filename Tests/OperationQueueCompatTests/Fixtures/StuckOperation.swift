import Foundation
import OperationGraph
import OperationQueueCompat
import OperationTestSupport

/// A ``ConcurrentOperation`` whose work ignores cancellation and never finishes by itself: it
/// records that it executed and waits for the test to finish it with ``finishLate(with:)``.
final class StuckOperation: ConcurrentOperation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; the stored properties are
  // `let`s of `Sendable` types.
  let executed = Gate()

  override func execute() {
    self.executed.open()
  }

  /// Finishes the operation as its work would, late: after a timeout this must change nothing.
  func finishLate(with error: any Error) {
    self.finish([error])
  }
}
