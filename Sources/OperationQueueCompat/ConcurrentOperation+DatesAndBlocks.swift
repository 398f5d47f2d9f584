public import Foundation
import OperationSynchronization

extension ConcurrentOperation {
  /// When the operation started executing, between will-start and did-start; `nil` before.
  public var startDate: Date? {
    self.lifecycle.withLock { $0.startDate }
  }

  /// When the operation finished, between will-finish and did-finish; `nil` before.
  public var finishDate: Date? {
    self.lifecycle.withLock { $0.finishDate }
  }

  /// How long the operation executed: 0 before it started, then until its finish date (until
  /// now while it executes).
  public var executionTime: TimeInterval {
    let (start, finish) = self.lifecycle.withLock { ($0.startDate, $0.finishDate) }
    guard let start else { return 0 }
    return (finish ?? self.context.operationClock.now()).timeIntervalSince(start)
  }

  /// Adds a block that runs as the operation is about to start, after the will-start
  /// notification. Blocks run in the order they were added.
  ///
  /// - Parameter block: The block.
  public func addWillStartBlock(block: @escaping @Sendable () -> Void) {
    self.lifecycle.withLock { $0.willStartBlocks.append(block) }
  }

  /// Adds a block that runs once the operation has started, after the did-start notification.
  ///
  /// - Parameter block: The block.
  public func addDidStartBlock(block: @escaping @Sendable () -> Void) {
    self.lifecycle.withLock { $0.didStartBlocks.append(block) }
  }

  /// Adds a block that runs as the operation is about to finish, after the will-finish
  /// notification.
  ///
  /// - Parameter block: The block.
  public func addWillFinishBlock(block: @escaping @Sendable () -> Void) {
    self.lifecycle.withLock { $0.willFinishBlocks.append(block) }
  }

  /// Adds a block that runs once the operation has finished, after the did-finish notification.
  ///
  /// - Parameter block: The block.
  public func addDidFinishBlock(block: @escaping @Sendable () -> Void) {
    self.lifecycle.withLock { $0.didFinishBlocks.append(block) }
  }
}
