public import Foundation

/// Something told about the life of a ``ConcurrentOperation``: danthorpe/Operations'
/// `OperationObserver`.
///
/// Add one with ``ConcurrentOperation/addObserver(_:)``. Every event has a default that does
/// nothing, so an observer implements only what it needs. Events arrive on the thread that caused
/// them, never under a lock of the operation, in this order: ``didAttach(to:)`` when added;
/// ``willStart(_:)`` and ``didStart(_:)`` around the start date, once the conditions are
/// satisfied; ``didCancel(_:errors:)`` once, at the first cancel;
/// ``didProduce(_:from:)`` for each produced operation; ``willFinish(_:errors:)`` and
/// ``didFinish(_:errors:)`` around the finish date. An operation that finishes without executing
/// (cancelled first, or a condition failed) gets the finish events without the start events.
///
/// ``BlockObserver``, `TimeoutObserver` and `LoggingObserver` are observers of this kind;
/// the last two observe a `WorkGraph`'s nodes as well.
public protocol OperationObserver: Sendable {
  /// Whether the observer is also added to every operation its operation produces; `false` by
  /// default.
  var attachesToProducedOperations: Bool { get }

  /// The observer was added to `operation`.
  func didAttach(to operation: ConcurrentOperation)

  /// `operation` is about to start: its conditions are satisfied, it has no start date yet.
  func willStart(_ operation: ConcurrentOperation)

  /// `operation` has its start date and is about to execute.
  func didStart(_ operation: ConcurrentOperation)

  /// `operation` was cancelled, with `errors` (those given to
  /// ``ConcurrentOperation/cancelWithErrors(_:)``, often none). Called once, whatever the number
  /// of cancels.
  func didCancel(_ operation: ConcurrentOperation, errors: [any Error])

  /// `operation` produced `produced` (``ConcurrentOperation/produceOperation(_:)``).
  func didProduce(_ produced: Foundation.Operation, from operation: ConcurrentOperation)

  /// `operation` is about to finish with `errors`; it has no finish date yet.
  func willFinish(_ operation: ConcurrentOperation, errors: [any Error])

  /// `operation` finished with `errors`.
  func didFinish(_ operation: ConcurrentOperation, errors: [any Error])
}

extension OperationObserver {
  public var attachesToProducedOperations: Bool { false }
  public func didAttach(to operation: ConcurrentOperation) {}
  public func willStart(_ operation: ConcurrentOperation) {}
  public func didStart(_ operation: ConcurrentOperation) {}
  public func didCancel(_ operation: ConcurrentOperation, errors: [any Error]) {}
  public func didProduce(_ produced: Foundation.Operation, from operation: ConcurrentOperation) {}
  public func willFinish(_ operation: ConcurrentOperation, errors: [any Error]) {}
  public func didFinish(_ operation: ConcurrentOperation, errors: [any Error]) {}
}
