public import Foundation

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
/// For the nodes of a ``WorkGraph``, use ``GraphBlockObserver``.
public struct BlockObserver: OperationObserver {
  private let onAttach: (@Sendable (ConcurrentOperation) -> Void)?
  private let onWillStart: (@Sendable (ConcurrentOperation) -> Void)?
  private let onDidStart: (@Sendable (ConcurrentOperation) -> Void)?
  private let onDidCancel: (@Sendable (ConcurrentOperation) -> Void)?
  private let onDidProduce: (@Sendable (ConcurrentOperation, Foundation.Operation) -> Void)?
  private let onWillFinish: (@Sendable (ConcurrentOperation, [any Error]) -> Void)?
  private let onDidFinish: (@Sendable (ConcurrentOperation, [any Error]) -> Void)?

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
    self.onAttach = didAttach
    self.onWillStart = willStart
    self.onDidStart = didStart
    self.onDidCancel = didCancel
    self.onDidProduce = didProduce
    self.onWillFinish = willFinish
    self.onDidFinish = didFinish
  }

  /// Creates an observer that only handles did-finish, from a trailing closure, as
  /// `BlockObserver { operation, errors in … }` reads.
  ///
  /// - Parameter didFinish: Called with the operation and its errors once it finished.
  public init(_ didFinish: @escaping @Sendable (ConcurrentOperation, [any Error]) -> Void) {
    self.init(didFinish: didFinish)
  }

  public func didAttach(to operation: ConcurrentOperation) {
    self.onAttach?(operation)
  }

  public func willStart(_ operation: ConcurrentOperation) {
    self.onWillStart?(operation)
  }

  public func didStart(_ operation: ConcurrentOperation) {
    self.onDidStart?(operation)
  }

  public func didCancel(_ operation: ConcurrentOperation, errors: [any Error]) {
    self.onDidCancel?(operation)
  }

  public func didProduce(_ produced: Foundation.Operation, from operation: ConcurrentOperation) {
    self.onDidProduce?(operation, produced)
  }

  public func willFinish(_ operation: ConcurrentOperation, errors: [any Error]) {
    self.onWillFinish?(operation, errors)
  }

  public func didFinish(_ operation: ConcurrentOperation, errors: [any Error]) {
    self.onDidFinish?(operation, errors)
  }
}
