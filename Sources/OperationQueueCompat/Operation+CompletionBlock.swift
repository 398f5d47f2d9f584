public import Foundation
import OperationCore
import OperationSynchronization

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
    // current block and replacing it one step when two threads add blocks at once. The lock is
    // held while `completionBlock` is read and written: Foundation's accessors run under it (a
    // subclass that overrode them would run its code there too; this module's classes do not).
    completionBlockChains.withLock { count in
      count += 1
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
/// `completionBlock`. It guards the number of blocks chained so far, a value of its own: a lock of
/// an empty value would keep the value where the mutex is, which the thread sanitizer reports as
/// a race (see `Lock`).
private let completionBlockChains = Lock(0)
