public import Foundation
import OperationCore
import OperationGraph

extension TimeoutObserver: OperationObserver {
  /// Creates the observer with a timeout in seconds, as danthorpe/Operations' takes it.
  ///
  /// ```swift
  /// download.addObserver(TimeoutObserver(timeout: 10))
  /// ```
  ///
  /// - Parameter timeout: How many seconds a node or an operation may run.
  public convenience init(timeout: TimeInterval) {
    self.init(timeout: .seconds(timeout))
  }

  /// Starts the operation's timer, on the delayer of its ``ConcurrentOperation/context``: at the
  /// deadline, the operation is cancelled with an `OperationTimeoutError` and finishes.
  ///
  /// The operation then **ends at once**, whether or not its work heeds the cancellation:
  /// `isFinished` becomes `true`, which frees its `OperationQueue` slot, its
  /// ``ConcurrentOperation/errors`` hold the timeout error, and
  /// ``Foundation/Operation/untilFinished()`` throws. A `finish()` that its work calls later is
  /// ignored, but for one thing: the operation's mutual-exclusion locks stay held until then, so
  /// nothing of the same category runs beside work that still goes on. Unlike danthorpe/Operations'
  /// observer, it also finishes an operation that does not finish when cancelled.
  public func didStart(_ operation: ConcurrentOperation) {
    let timeout = self.timeout
    self.startTimer(
      for: .object(ObjectIdentifier(operation)),
      delayer: operation.context.operationDelayer
    ) {
      operation.end(atDeadlineWith: OperationTimeoutError(duration: timeout))
    }
  }

  /// Stops the operation's timer.
  public func didFinish(_ operation: ConcurrentOperation, errors: [any Error]) {
    self.stopTimer(for: .object(ObjectIdentifier(operation)))
  }
}
