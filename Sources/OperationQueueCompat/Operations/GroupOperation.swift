public import Foundation
@_spi(Warnings) import OperationCore
import OperationSynchronization

/// A ``ConcurrentOperation`` that runs other operations, its children, and finishes when all of
/// them have: danthorpe/Operations' `GroupOperation`.
///
/// ```swift
/// let group = GroupOperation(operations: fetchContacts, fetchGroups)
/// group.addObserver(BlockObserver { _, errors in
///   print("Synced", errors.isEmpty ? "" : "with \(errors.count) error(s)")
/// })
/// queue.addOperation(group)
/// ```
///
/// - The children run on the group's ``ConcurrentOperation/internalQueue``, which stays
///   suspended until the group executes, so a child's dependencies, conditions and observers work
///   as on any queue (each ``ConcurrentOperation`` child evaluates its own conditions).
/// - Children can be added while the group runs (``addOperation(_:)``), from inside a child too:
///   a child's ``ConcurrentOperation/produceOperation(_:)`` adds the produced operation as a
///   child. The group finishes once every child has finished, those added late included.
/// - The group finishes with ``aggregateErrors``: the errors of every ``ConcurrentOperation``
///   child (a plain `Foundation.Operation` has none). A nested group contributes its own
///   aggregate, so one failing grandchild gives one error.
/// - `cancel()` cancels every child, and the group finishes once they have finished (an
///   executing child that ignores cancellation keeps the group waiting, as its own queue would).
///   ``ConcurrentOperation/cancelWithErrors(_:)`` cancels the ``ConcurrentOperation`` children
///   with an ``OperationParentCancelledError`` that carries the errors.
/// - Override ``willFinishOperation(_:errors:)`` to act as each child finishes, before the group
///   counts it: a child added there keeps the group running.
///
/// Differences from Operations 2.x: the queue is a plain `OperationQueue` (no hidden finishing
/// operation or queue delegate); adding a child after the group started finishing is reported
/// as a warning and the child is not run (2.x asserted); `userIntent` does not exist.
open class GroupOperation: ConcurrentOperation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance. The only stored property
  // this class adds is `group`, a `Lock` whose value is read and written only inside `withLock`,
  // and no user code runs while it is held.
  private let group = Lock(GroupState())

  /// Creates a group of operations.
  ///
  /// - Parameter operations: The first children; more can be added with ``addOperation(_:)``.
  public init(operations: [Foundation.Operation]) {
    super.init()
    self.internalQueue.isSuspended = true
    self.addOperations(operations)
  }

  /// Creates a group of operations.
  ///
  /// - Parameter operations: The first children.
  public convenience init(operations: Foundation.Operation...) {
    self.init(operations: operations)
  }

  // MARK: - Children

  /// The children added so far, in the order they were added, finished ones included.
  public var operations: [Foundation.Operation] {
    self.group.withLock { $0.children }
  }

  /// The errors of the children that have finished, in the order they finished, with those
  /// given to ``aggregateError(_:)``.
  public var aggregateErrors: [any Error] {
    self.group.withLock { $0.aggregateErrors }
  }

  /// Adds an error to ``aggregateErrors``, so that the group finishes with it.
  ///
  /// - Parameter error: The error.
  public func aggregateError(_ error: any Error) {
    self.group.withLock { $0.aggregateErrors.append(error) }
  }

  /// Adds a child. It runs once the group executes (at once when it already does).
  ///
  /// A child added after the group started finishing is reported with a warning and not run.
  /// A child added to a cancelled group is cancelled.
  ///
  /// - Parameter operation: The child.
  public func addOperation(_ operation: Foundation.Operation) {
    self.addOperations([operation])
  }

  /// Adds children. They run once the group executes (at once when it already does).
  ///
  /// - Parameter operations: The children.
  public func addOperations(_ operations: [Foundation.Operation]) {
    guard !operations.isEmpty else { return }
    let isAdded = self.group.withLock { state in
      guard !state.isFinishing else { return false }
      state.children.append(contentsOf: operations)
      for operation in operations {
        state.pending.insert(ObjectIdentifier(operation))
      }
      return true
    }
    guard isAdded else {
      for operation in operations {
        reportWarning(
          .groupOperationChildAddedAfterFinishing(
            String(describing: operation),
            self.description
          )
        )
      }
      return
    }
    for operation in operations {
      if let child = operation as? ConcurrentOperation {
        child.produceHandler = { [weak self] produced in
          self?.addOperation(produced)
        }
      }
      if self.isCancelRequested {
        operation.cancel()
      }
      self.whenChildFinishes(operation)
    }
    self.internalQueue.addOperations(operations, waitUntilFinished: false)
  }

  // MARK: - Subclassing

  /// Called as each child finishes, with its errors (none for a plain `Foundation.Operation`),
  /// before the group counts it as finished and before its errors join ``aggregateErrors``. The
  /// default does nothing.
  ///
  /// Children added here keep the group running: this is how repeated and retrying groups add
  /// their next attempt.
  ///
  /// - Parameters:
  ///   - operation: The child that finished.
  ///   - errors: Its errors.
  open func willFinishOperation(_ operation: Foundation.Operation, errors: [any Error]) {}

  /// Runs the children; subclasses that override it call `super.execute()`.
  open override func execute() {
    self.group.withLock { $0.isExecuting = true }
    self.internalQueue.isSuspended = false
    self.finishIfDone()
  }

  /// Cancels the group and every child.
  ///
  /// The group finishes once every child has finished.
  open override func cancel() {
    // NB: The queue starts nothing while the children are cancelled one by one: a child that
    // finishes as it is cancelled would otherwise let a dependent child start before its turn.
    self.internalQueue.isSuspended = true
    super.cancel()
    for child in self.operations where !child.isCancelled {
      child.cancel()
    }
    // NB: A cancelled child still in a suspended queue would never finish.
    self.internalQueue.isSuspended = false
  }

  /// Cancels the ``ConcurrentOperation`` children with an ``OperationParentCancelledError``
  /// carrying `errors`, then the group with `errors`.
  ///
  /// - Parameter errors: Why the group was cancelled.
  open override func cancelWithErrors(_ errors: [any Error]) {
    // NB: Children that finish as they are cancelled must not finish the group before it has
    // its own errors.
    self.group.withLock { $0.holdsFinish += 1 }
    if !errors.isEmpty {
      let parentError = OperationParentCancelledError(errors: errors)
      for case let child as ConcurrentOperation in self.operations {
        child.cancelWithErrors([parentError])
      }
    }
    super.cancelWithErrors(errors)
    self.group.withLock { $0.holdsFinish -= 1 }
    self.finishIfDone()
  }

  /// The errors the group finishes with, given its aggregate errors: they themselves by default.
  func finishingErrors(aggregate: [any Error]) -> [any Error] {
    aggregate
  }

  // MARK: - Private

  private func whenChildFinishes(_ operation: Foundation.Operation) {
    let onFinish: @Sendable () -> Void = { [weak self, weak operation] in
      guard let self, let operation else { return }
      self.childDidFinish(operation)
    }
    operation.whenFinished(onFinish)
  }

  private func childDidFinish(_ operation: Foundation.Operation) {
    let errors = (operation as? ConcurrentOperation)?.errors ?? []
    self.willFinishOperation(operation, errors: errors)
    self.group.withLock { state in
      state.aggregateErrors.append(contentsOf: errors)
      state.pending.remove(ObjectIdentifier(operation))
    }
    self.finishIfDone()
  }

  private func finishIfDone() {
    let aggregate = self.group.withLock { state -> [any Error]? in
      guard state.isExecuting, state.pending.isEmpty, state.holdsFinish == 0, !state.isFinishing
      else { return nil }
      state.isFinishing = true
      return state.aggregateErrors
    }
    guard let aggregate else { return }
    self.finish(self.finishingErrors(aggregate: aggregate))
  }

  private struct GroupState {
    var children = [Foundation.Operation]()
    var pending = Set<ObjectIdentifier>()
    var aggregateErrors = [any Error]()
    var isExecuting = false
    var isFinishing = false
    var holdsFinish = 0
  }
}

/// A child of a ``GroupOperation`` or ``ComposedOperation`` was cancelled because its parent
/// was cancelled with errors: Operations' `OperationError.ParentOperationCancelledWithErrors`.
///
/// It mirrors the graph's `GraphParentCancelledError`.
public struct OperationParentCancelledError: Error, Sendable, CustomStringConvertible {
  /// The errors the parent was cancelled with.
  public let errors: [any Error]

  /// Creates the error.
  ///
  /// - Parameter errors: The errors the parent was cancelled with.
  public init(errors: [any Error]) {
    self.errors = errors
  }

  public var description: String {
    "The operation's parent was cancelled with \(self.errors.count) error(s): \(self.errors)"
  }
}
