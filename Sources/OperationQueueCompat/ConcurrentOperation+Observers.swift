public import Foundation
import OperationSynchronization

extension ConcurrentOperation {
  /// Adds an observer, and tells it with ``OperationObserver/didAttach(to:)``.
  ///
  /// - Parameter observer: The observer.
  public func addObserver(_ observer: some OperationObserver) {
    self.lifecycle.withLock { $0.observers.append(observer) }
    observer.didAttach(to: self)
  }

  /// The operation's observers, in the order they were added.
  public var observers: [any OperationObserver] {
    self.lifecycle.withLock { $0.observers }
  }

  /// Produces another operation: tells the observers, then adds it to the queue this operation
  /// runs on (the group's queue inside a ``GroupOperation``, a shared queue when it runs on
  /// none).
  ///
  /// Observers that ``OperationObserver/attachesToProducedOperations`` are added to `operation`
  /// when it is a ``ConcurrentOperation``.
  ///
  /// - Parameter operation: The new operation.
  public func produceOperation(_ operation: Foundation.Operation) {
    let (observers, handler, queue) = self.lifecycle.withLock {
      ($0.observers, $0.produceHandler, $0.queue.queue)
    }
    if let produced = operation as? ConcurrentOperation {
      for observer in observers where observer.attachesToProducedOperations {
        produced.addObserver(observer)
      }
    }
    for observer in observers {
      observer.didProduce(operation, from: self)
    }
    if let handler {
      handler(operation)
    } else {
      (queue ?? .producedOperations).addOperation(operation)
    }
  }
}

extension OperationQueue {
  /// Where operations produced outside of any queue go.
  fileprivate static let producedOperations: OperationQueue = {
    let queue = OperationQueue()
    queue.name = "OperationGraph.producedOperations"
    return queue
  }()
}
