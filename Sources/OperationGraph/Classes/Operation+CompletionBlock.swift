public import Foundation

extension Foundation.Operation {
  /// Adds a block to run when the operation finishes, after the blocks added before it:
  /// danthorpe/Operations' `addCompletionBlock(_:)`.
  ///
  /// Foundation's `completionBlock` holds one block; this keeps the current one and runs it
  /// first. As with `completionBlock`, the blocks run once the operation has finished, on a
  /// thread of Foundation's choosing.
  ///
  /// - Parameter block: The block.
  public func addCompletionBlock(_ block: @escaping @Sendable () -> Void) {
    // NB: One lock for every operation: adding blocks is rare, and the lock makes reading the
    // current block and replacing it one step when two threads add blocks at once.
    completionBlockLock.withLock {
      if let existing = self.completionBlock {
        self.completionBlock = {
          existing()
          block()
        }
      } else {
        self.completionBlock = block
      }
    }
  }
}

/// Serialises ``Foundation/Operation/addCompletionBlock(_:)``'s read and write of
/// `completionBlock`; it guards no value of its own, so it is an `NSLock` (a package `Lock` of an
/// empty value would put the value where the mutex is, which the thread sanitizer reports).
private let completionBlockLock = NSLock()
