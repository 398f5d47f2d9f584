public import Foundation
import OperationGraph

/// An observer of a ``ConcurrentOperation`` made of closures: danthorpe/Operations'
/// `BlockObserver`.
///
/// Every closure is optional, and a trailing closure is the did-finish one:
///
/// ```swift
/// save.addObserver(BlockObserver { operation, errors in
///   print("Did save contact", errors.isEmpty ? "" : "with \(errors)")
/// })
/// ```
///
/// For the nodes of a `WorkGraph`, use `GraphBlockObserver`.
public struct BlockObserver: OperationObserver {
  // NB: The graph's `GraphBlockObserver` runs on the same closures; only the types differ.
  private let closures: ObserverClosures<ConcurrentOperation, Foundation.Operation, [any Error]>

  /// Creates an observer from closures.
  ///
  /// - Parameters:
  ///   - didAttach: Called with the operation when the observer is added to it.
  ///   - willStart: Called as the operation is about to start.
  ///   - didStart: Called once the operation has started, before it executes.
  ///   - didCancel: Called once, at the operation's first cancel.
  ///   - didProduce: Called with the operation and each operation it produces.
  ///   - willFinish: Called with the operation and its errors as it is about to finish.
  ///   - didFinish: Called with the operation and its errors once it finished.
  public init(
    didAttach: (@Sendable (ConcurrentOperation) -> Void)? = nil,
    willStart: (@Sendable (ConcurrentOperation) -> Void)? = nil,
    didStart: (@Sendable (ConcurrentOperation) -> Void)? = nil,
    didCancel: (@Sendable (ConcurrentOperation) -> Void)? = nil,
    didProduce: (@Sendable (ConcurrentOperation, Foundation.Operation) -> Void)? = nil,
    willFinish: (@Sendable (ConcurrentOperation, [any Error]) -> Void)? = nil,
    didFinish: (@Sendable (ConcurrentOperation, [any Error]) -> Void)? = nil
  ) {
    // NB: Operations' did-cancel closure gets no errors, and its did-produce one gets the
    // producer first.
    var onCancel: (@Sendable (ConcurrentOperation, [any Error]) -> Void)?
    if let didCancel {
      onCancel = { operation, _ in didCancel(operation) }
    }
    var onProduce: (@Sendable (Foundation.Operation, ConcurrentOperation) -> Void)?
    if let didProduce {
      onProduce = { produced, operation in didProduce(operation, produced) }
    }
    self.closures = ObserverClosures(
      didAttach: didAttach,
      willStart: willStart,
      didStart: didStart,
      didCancel: onCancel,
      didProduce: onProduce,
      willFinish: willFinish,
      didFinish: didFinish
    )
  }

  /// Creates an observer that only handles did-finish, from a trailing closure, as
  /// `BlockObserver { operation, errors in … }` reads.
  ///
  /// - Parameter didFinish: Called with the operation and its errors once it finished.
  public init(_ didFinish: @escaping @Sendable (ConcurrentOperation, [any Error]) -> Void) {
    self.init(didFinish: didFinish)
  }

  public func didAttach(to operation: ConcurrentOperation) {
    self.closures.attached(to: operation)
  }

  public func willStart(_ operation: ConcurrentOperation) {
    self.closures.willStart(operation)
  }

  public func didStart(_ operation: ConcurrentOperation) {
    self.closures.didStart(operation)
  }

  public func didCancel(_ operation: ConcurrentOperation, errors: [any Error]) {
    self.closures.cancelled(operation, errors: errors)
  }

  public func didProduce(_ produced: Foundation.Operation, from operation: ConcurrentOperation) {
    self.closures.produced(produced, by: operation)
  }

  public func willFinish(_ operation: ConcurrentOperation, errors: [any Error]) {
    self.closures.willFinish(operation, outcome: errors)
  }

  public func didFinish(_ operation: ConcurrentOperation, errors: [any Error]) {
    self.closures.didFinish(operation, outcome: errors)
  }
}
