import Foundation

/// A ``ConcurrentOperation`` that runs a closure: danthorpe/Operations' `BlockOperation`, under
/// ProcedureKit 5's name, since `BlockOperation` is Foundation's.
///
/// The closure finishes the operation by calling the continuation it gets, with an error or
/// `nil`:
///
/// ```swift
/// let save = BlockProcedure { continueWithError in
///   store.save(contact) { error in continueWithError(error) }
/// }
/// ```
///
/// A closure without a continuation finishes the operation when it returns (with the error it
/// throws), and `init(mainQueueBlock:)` runs one on the main actor, which is the main queue in an
/// app, as Operations' runs it on the main queue.
/// Conditions and observers work on it as on any ``ConcurrentOperation``.
open class BlockProcedure: ConcurrentOperation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; the only stored property is
  // a `let` of a `Sendable` closure.
  private let block:
    @Sendable (_ continueWithError: @escaping @Sendable ((any Error)?) -> Void) -> Void

  /// Creates an operation from a closure that calls its continuation when done.
  ///
  /// - Parameter block: The work; it calls `continueWithError` once, with an error or `nil`. The
  ///   default continues at once.
  public init(
    block:
      @escaping @Sendable (_ continueWithError: @escaping @Sendable ((any Error)?) -> Void) ->
      Void = { continueWithError in continueWithError(nil) }
  ) {
    self.block = block
    super.init()
  }

  /// Creates an operation from a closure that finishes the operation when it returns.
  ///
  /// - Parameter body: The work; a thrown error fails the operation.
  public convenience init(_ body: @escaping @Sendable () throws -> Void) {
    self.init { continueWithError in
      do {
        try body()
        continueWithError(nil)
      } catch {
        continueWithError(error)
      }
    }
  }

  /// Creates an operation that runs a closure on the main actor (the main queue in an app), then
  /// finishes.
  ///
  /// - Parameter mainQueueBlock: The work.
  public convenience init(mainQueueBlock: @escaping @MainActor @Sendable () -> Void) {
    self.init { continueWithError in
      // NB: The block is isolated to the main actor, which runs on the main queue in an app (where
      // Operations dispatched it), and which needs no thread of ours.
      Task { @MainActor in
        mainQueueBlock()
        continueWithError(nil)
      }
    }
  }

  /// Runs the closure, unless the operation was cancelled first.
  open override func execute() {
    guard !self.isCancelled else {
      self.finish()
      return
    }
    self.block { [self] error in
      self.finish(error)
    }
  }
}
