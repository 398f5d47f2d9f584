import Foundation
import OperationCore
import OperationSynchronization

/// An operation that runs a chain of operations on its ``ConcurrentOperation/internalQueue`` and
/// keeps only whether its last operation succeeded: PeakOperation's `GroupChainOperation`.
///
/// ```swift
/// // Would otherwise produce String, now produces Void.
/// let group1 = intOperation
///   .passesResult(to: stringOperation)
///   .group()
///
/// // Would otherwise consume Bool, now consumes Void.
/// let group2 = boolOperation
///   .passesResult(to: anyOperation)
///   .group()
///
/// group1
///   .passesResult(to: group2)
///   .enqueue()
/// ```
///
/// It produces and consumes `Void`, so groups chain whatever their operations' types:
/// - Its ``input`` is `.success(())` unless a producer passes a failure; then the group's output
///   is that failure and it finishes without running its chain.
/// - Otherwise it enqueues the chain (the last operation and every operation it depends on) on
///   its internal queue, and finishes when the last operation has, with `.success(())` or the
///   last operation's failure. The value is dropped; an earlier failure shows only when the
///   operations after it pass it on (``MapOperation`` does).
/// - Cancelling the group cancels the operations of its chain that have not finished; the group
///   finishes when the last one has.
/// - With `collateProgress`, the group's ``ConcurrentOperation/progress`` is the chain's: it is
///   adopted when the chain is enqueued (see ``Foundation/Operation/chainProgress()``), and
///   completed at once when the chain never runs.
///
/// Unlike PeakOperation's, it waits for the last operation to finish rather than for its result
/// block, so the last operation's `completionBlock` is left alone, and its input and output are
/// stored behind a lock.
open class GroupChainOperation: ConcurrentOperation, ConsumesResult, ProducesResult,
  @unchecked Sendable
{
  // NB: `@unchecked Sendable` restates the superclass's conformance. The stored properties are
  // `let`s of `Sendable` types, and the mutable state is read and written only inside its lock,
  // which runs no user code.
  private let lastOperation: ConcurrentOperation
  private let outcome: @Sendable () -> Result<Void, any Error>
  private let collatesProgress: Bool
  private let state = Lock(State())

  private struct State {
    var input: Result<Void, any Error> = .success(())
    var output: Result<Void, any Error> = .failure(ResultError.noResult)
    var hasEnqueuedChain = false
  }

  /// Creates a group that runs a chain.
  ///
  /// - Parameters:
  ///   - lastOpOfChain: The chain's last operation; the group runs it and every operation it
  ///     depends on.
  ///   - collateProgress: Whether the group's progress is the chain's, rather than 0 until the
  ///     group finishes.
  public init<Last: ConcurrentOperation & ProducesResult>(
    with lastOpOfChain: Last,
    collateProgress: Bool = false
  ) {
    self.lastOperation = lastOpOfChain
    self.outcome = { lastOpOfChain.output.map { _ in () } }
    self.collatesProgress = collateProgress
    super.init()
    if collateProgress {
      self.managesOwnProgress = true
    }
  }

  /// The input: `.success(())` unless a producer passed a failure.
  public var input: Result<Void, any Error> {
    get { self.state.withLock { $0.input } }
    set { self.state.withLock { $0.input = newValue } }
  }

  /// The output: `.failure(ResultError.noResult)` until the group finishes, then the outcome of
  /// its last operation, or its failed input.
  public var output: Result<Void, any Error> {
    get { self.state.withLock { $0.output } }
    set { self.state.withLock { $0.output = newValue } }
  }

  /// Runs the chain, unless the input failed.
  open override func execute() {
    if case .failure(let error) = self.input {
      self.output = .failure(error)
      self.finish()
      return
    }
    // NB: The queue is made before the cancellation check, so that a cancel from now on cancels
    // it; a cancel between the check and the enqueue is caught after it.
    let queue = self.internalQueue
    guard !self.isCancelled, !self.isCancelRequested else {
      self.finish()
      return
    }
    if self.collatesProgress {
      self.progress.addChild(self.lastOperation.chainProgress(), withPendingUnitCount: 100)
    }
    self.state.withLock { $0.hasEnqueuedChain = true }
    // NB: The group holds the last operation, which holds this closure until it has finished.
    self.lastOperation.whenFinished { [self] in
      self.output = self.outcome()
      self.finish()
    }
    self.lastOperation.enqueue(on: queue)
    if self.isCancelRequested {
      queue.cancelAllOperations()
    }
  }

  /// Completes a collating group's progress when its chain never ran.
  open override func finished(_ errors: [any Error]) {
    super.finished(errors)
    let hasEnqueuedChain = self.state.withLock { $0.hasEnqueuedChain }
    if self.collatesProgress, !hasEnqueuedChain {
      self.progress.completedUnitCount = self.progress.totalUnitCount
    }
  }
}

extension ProducesResult where Self: ConcurrentOperation {
  /// Wraps the operation and its chain in a ``GroupChainOperation``.
  ///
  /// - Parameter collateProgress: Whether the group's progress is the chain's.
  /// - Returns: The group.
  public func group(collateProgress: Bool = false) -> GroupChainOperation {
    GroupChainOperation(with: self, collateProgress: collateProgress)
  }
}
