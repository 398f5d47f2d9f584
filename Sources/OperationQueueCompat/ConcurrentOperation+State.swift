package import Foundation
import OperationCore
import OperationSynchronization

// MARK: - Package hooks

extension ConcurrentOperation {
  /// Whether the operation reports its own progress, so that finishing leaves it alone.
  package var managesOwnProgress: Bool {
    get { self.lifecycle.withLock { $0.managesOwnProgress } }
    set { self.lifecycle.withLock { $0.managesOwnProgress = newValue } }
  }

  /// Where ``produceOperation(_:)`` sends the operations it produces, instead of the queue: a
  /// group sets it on its children.
  package var produceHandler: (@Sendable (Foundation.Operation) -> Void)? {
    get { self.lifecycle.withLock { $0.produceHandler } }
    set { self.lifecycle.withLock { $0.produceHandler = newValue } }
  }

  /// Marks ``progress`` as adopted by a chain's progress; `false` when one already adopted it
  /// (a `Progress` has one parent).
  package func claimProgressForChain() -> Bool {
    self.lifecycle.withLock { state in
      defer { state.isProgressAdopted = true }
      return !state.isProgressAdopted
    }
  }

  /// Whether a cancel was asked for, even one that `isCancelled` does not show yet.
  package var isCancelRequested: Bool {
    self.lifecycle.withLock { $0.isCancelRequested }
  }

  /// Runs `body` once the operation has finished and its did-finish events were delivered (at
  /// once when that is already so).
  package func whenConcurrentOperationFinished(_ body: @escaping @Sendable () -> Void) {
    let isDone = self.lifecycle.withLock { state in
      guard state.hasCompletedFinishing else {
        state.finishWaiters.append(body)
        return false
      }
      return true
    }
    if isDone {
      body()
    }
  }

}

// MARK: - State

extension ConcurrentOperation {
  /// Where the operation is in its life.
  enum Phase {
    case ready
    case preparing
    case executing
    case finished
  }

  enum StartAction {
    case ignore
    case finishWithoutExecuting
    case execute
    case prepare([any OperationCondition])
  }

  enum Verdict: Sendable {
    case execute
    case finish([any Error])
    case cancel
  }

  struct WeakQueue {
    weak var queue: OperationQueue?
  }

  struct Lifecycle {
    var phase = Phase.ready
    var isFinishing = false
    /// Whether a deadline ended the operation (``ConcurrentOperation/end(atDeadlineWith:)``),
    /// so that it keeps its locks until its work calls `finish`.
    var isEndedAtDeadline = false
    var hasCompletedFinishing = false
    var isCancelRequested = false
    var errors = [any Error]()
    var cancellationErrors = [any Error]()
    var startDate: Date?
    var finishDate: Date?
    var willStartBlocks = [@Sendable () -> Void]()
    var didStartBlocks = [@Sendable () -> Void]()
    var willFinishBlocks = [@Sendable () -> Void]()
    var didFinishBlocks = [@Sendable () -> Void]()
    var finishWaiters = [@Sendable () -> Void]()
    var conditions = [any OperationCondition]()
    var observers = [any OperationObserver]()
    var heldCategories = [String]()
    var preparation: Task<Void, Never>?
    var queue = WeakQueue()
    var queueName: String?
    var context = OperationContext()
    var internalQueue: OperationQueue?
    var managesOwnProgress = false
    var isProgressAdopted = false
    var produceHandler: (@Sendable (Foundation.Operation) -> Void)?
  }
}
