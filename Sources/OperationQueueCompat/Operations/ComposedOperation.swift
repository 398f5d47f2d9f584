public import Foundation
import OperationCore
import OperationSynchronization

/// A ``ConcurrentOperation`` that runs another operation, of any kind, and finishes with its
/// errors: danthorpe/Operations' `ComposedOperation`.
///
/// Use it to give a plain `Foundation.Operation` conditions and observers without subclassing
/// it:
///
/// ```swift
/// let save = ComposedOperation(connection.writeOperation(contact))
/// save.addObserver(BlockObserver { _, errors in
///   print("Did save contact")
/// })
/// queue.addOperation(save)
/// ```
///
/// When it executes, the target runs as its only child on its
/// ``ConcurrentOperation/internalQueue`` (it is a ``GroupOperation``), and it finishes with the
/// target's errors: a ``ConcurrentOperation``'s ``ConcurrentOperation/errors``, none for a plain
/// operation. `cancel()` cancels the target (which then does not run, or finishes as its own
/// cancellation dictates); ``ConcurrentOperation/cancelWithErrors(_:)`` cancels a
/// ``ConcurrentOperation`` target with an ``OperationParentCancelledError`` carrying the errors.
///
/// Differences from Operations 2.x: the target is not *produced* (observers get no
/// `didProduce`); it is a child from the start of execution, so an enclosing group's queue does
/// not see it.
open class ComposedOperation<T: Foundation.Operation>: GroupOperation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance. `operation` is a `let` of a
  // `Sendable` class and `composition` is a `Lock` used only through `withLock`, with no user
  // code inside.

  /// The composed operation.
  public let operation: T

  private let composition = Lock(Composition())

  /// Composes an operation.
  ///
  /// - Parameter operation: The operation to run.
  public init(_ operation: T) {
    self.operation = operation
    super.init(operations: [])
    self.name = "Composed<\(operation.name ?? String(describing: T.self))>"
  }

  /// Composes an operation: Operations' labelled spelling.
  ///
  /// - Parameter operation: The operation to run.
  public convenience init(operation: T) {
    self.init(operation)
  }

  /// Whether the target runs when the operation executes; `true` here, the gate in
  /// ``GatedOperation``.
  func shouldRunTarget() -> Bool {
    true
  }

  /// Runs the target as the only child, then finishes with its errors.
  open override func execute() {
    let shouldAdd = self.composition.withLock { composition in
      guard !composition.isCancelled else { return false }
      composition.isAdded = true
      return true
    }
    if shouldAdd, self.shouldRunTarget() {
      self.addOperation(self.operation)
    }
    super.execute()
  }

  /// Cancels the operation and the target.
  open override func cancel() {
    self.composition.withLock { $0.isCancelled = true }
    super.cancel()
    self.operation.cancel()
  }

  /// Cancels a ``ConcurrentOperation`` target with an ``OperationParentCancelledError`` that
  /// carries `errors`, then the operation with `errors`.
  ///
  /// - Parameter errors: Why the operation was cancelled.
  open override func cancelWithErrors(_ errors: [any Error]) {
    let isAdded = self.composition.withLock { composition in
      composition.isCancelled = true
      return composition.isAdded
    }
    // NB: Once the target is a child, the group cancels it with the error.
    if !isAdded, !errors.isEmpty, let target = self.operation as? ConcurrentOperation {
      target.cancelWithErrors([OperationParentCancelledError(errors: errors)])
    }
    super.cancelWithErrors(errors)
  }

  private struct Composition {
    var isAdded = false
    var isCancelled = false
  }
}

/// A ``ComposedOperation`` that runs its operation only when a gate opens:
/// danthorpe/Operations' `GatedOperation`.
///
/// ```swift
/// let sync = GatedOperation(SyncOperation()) { settings.isSyncEnabled }
/// queue.addOperation(sync)
/// ```
///
/// The gate is asked once, when the operation executes. `true` runs the operation as
/// ``ComposedOperation`` does; `false` finishes without error, and the operation never runs (it
/// is not cancelled either).
open class GatedOperation<T: Foundation.Operation>: ComposedOperation<T>, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; the only stored property is
  // a `let` of a `Sendable` closure.
  private let gate: @Sendable () -> Bool

  /// Gates an operation.
  ///
  /// - Parameters:
  ///   - operation: The operation to run when the gate is open.
  ///   - gate: Asked once, when the gated operation executes.
  public init(operation: T, gate: @escaping @Sendable () -> Bool) {
    self.gate = gate
    super.init(operation)
    self.name = "Gated<\(operation.name ?? String(describing: T.self))>"
  }

  /// Gates an operation.
  ///
  /// - Parameters:
  ///   - operation: The operation to run when the gate is open.
  ///   - gate: Asked once, when the gated operation executes.
  public convenience init(_ operation: T, gate: @escaping @Sendable () -> Bool) {
    self.init(operation: operation, gate: gate)
  }

  override func shouldRunTarget() -> Bool {
    self.gate()
  }
}
