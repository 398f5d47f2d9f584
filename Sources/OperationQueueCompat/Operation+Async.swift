public import Foundation

extension Foundation.Operation {
  /// Waits until the operation finishes, from async code: for any `Foundation.Operation`, on any
  /// queue.
  ///
  /// ```swift
  /// queue.addOperation(download)
  /// try await download.untilFinished()
  /// ```
  ///
  /// Cancellation goes both ways: cancelling the waiting task cancels the operation (and the
  /// wait goes on until it finishes, as cancelled operations do), and a cancelled operation
  /// throws `CancellationError`. A ``ConcurrentOperation`` that failed throws
  /// ``OperationErrors`` with its errors; for it the wait also covers its did-finish blocks and
  /// observers. The operation must be on a queue, or started, for the wait to end.
  ///
  /// - Throws: `CancellationError` when the operation was cancelled; ``OperationErrors`` when a
  ///   ``ConcurrentOperation`` finished with errors.
  public func untilFinished() async throws {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        self.whenFinished { continuation.resume() }
      }
    } onCancel: {
      self.cancel()
    }
    if let operation = self as? ConcurrentOperation {
      let errors = operation.errors
      if !errors.isEmpty {
        throw OperationErrors(errors: errors)
      }
    }
    if self.isCancelled {
      throw CancellationError()
    }
  }
}

/// The errors a ``ConcurrentOperation`` finished with, thrown by
/// ``Foundation/Operation/untilFinished()``.
public struct OperationErrors: Error, Sendable, CustomStringConvertible {
  /// The errors, in the order the operation got them.
  public let errors: [any Error]

  /// Wraps errors.
  ///
  /// - Parameter errors: The errors.
  public init(errors: [any Error]) {
    self.errors = errors
  }

  public var description: String {
    "The operation finished with \(self.errors.count) error(s): \(self.errors)"
  }
}

extension Foundation.Operation {
  /// Runs `body` once the operation has finished, at once when it already has: for a
  /// ``ConcurrentOperation``, after its did-finish blocks and observers; for another operation,
  /// from an operation that depends on it.
  package func whenFinished(_ body: @escaping @Sendable () -> Void) {
    if let operation = self as? ConcurrentOperation {
      operation.whenConcurrentOperationFinished(body)
    } else {
      let waiter = BlockOperation(block: body)
      waiter.addDependency(self)
      OperationQueue.finishWaiters.addOperation(waiter)
    }
  }
}

extension OperationQueue {
  /// Runs the operations that wake the tasks waiting for plain `Foundation.Operation`s.
  fileprivate static let finishWaiters: OperationQueue = {
    let queue = OperationQueue()
    queue.name = "OperationGraph.finishWaiters"
    return queue
  }()
}
