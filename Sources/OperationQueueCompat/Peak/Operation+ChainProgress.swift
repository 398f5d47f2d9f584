public import Foundation
import OperationCore

extension Foundation.Operation {
  /// A progress for the operation and every operation it depends on: PeakOperation's
  /// `chainProgress()`.
  ///
  /// ```swift
  /// let progress = last.chainProgress()
  /// last.enqueue()
  /// try await last.untilFinished()
  /// progress.fractionCompleted  // 1.0
  /// ```
  ///
  /// The result is a new `Progress(totalUnitCount: 100)` with one child per
  /// ``ConcurrentOperation`` of the ``operationChain``, each worth `100 / n` units, the last one
  /// also the remainder. Other operations of the chain are not counted, as in PeakOperation: a
  /// chain without a ``ConcurrentOperation`` gives a progress with no children, which stays at 0.
  ///
  /// A `Progress` has only one parent, so an operation's ``ConcurrentOperation/progress`` can be
  /// the child of only one chain progress. The first chain progress to reach an operation adopts
  /// its progress, and sees every partial update of it. A later chain progress (a second call, or
  /// a chain that shares operations with an earlier one) gets a stand-in child instead, which
  /// reads the operation's progress when it is made and completes once the operation has
  /// finished (after its did-finish blocks, so possibly after its dependents started): it sees
  /// finishes but not the partial progress in between. PeakOperation
  /// re-parented the progress, leaving the first chain progress stuck. The progress is marked as
  /// adopted in its `userInfo`.
  ///
  /// Linux has no KVO: read `fractionCompleted` when you need it (after awaiting the chain, in
  /// a test).
  ///
  /// - Returns: The chain's progress.
  public func chainProgress() -> Progress {
    let operations = self.operationChain.compactMap { $0 as? ConcurrentOperation }
    let progress = Progress(totalUnitCount: 100)
    guard !operations.isEmpty else { return progress }
    let share = 100 / Int64(operations.count)
    let remainder = 100 - share * Int64(operations.count)
    for (index, operation) in operations.enumerated() {
      let units = index == operations.count - 1 ? share + remainder : share
      progress.addChild(operation.chainProgressChild(), withPendingUnitCount: units)
    }
    return progress
  }

  /// The same as ``chainProgress()``: the name PeakOperation's README uses.
  ///
  /// - Returns: The chain's progress.
  public func overallProgress() -> Progress {
    self.chainProgress()
  }

  /// Makes the chain's progress, then adds the operation and its chain to a queue.
  ///
  /// ```swift
  /// let progress = first
  ///   .then(do: second)
  ///   .enqueueWithProgress()
  /// ```
  ///
  /// The progress is made before anything is enqueued (PeakOperation made it after), so it
  /// adopts the operations' progress before they can finish.
  ///
  /// - Parameter queue: The queue; a new one by default.
  /// - Returns: The chain's progress, as ``chainProgress()`` makes it.
  @discardableResult
  public func enqueueWithProgress(on queue: OperationQueue = OperationQueue()) -> Progress {
    let progress = self.chainProgress()
    self.enqueue(on: queue)
    return progress
  }
}

extension ProducesResult where Self: Foundation.Operation {
  /// Adds a result block, makes the chain's progress, then adds the operation and its chain to a
  /// queue.
  ///
  /// - Parameters:
  ///   - queue: The queue; a new one by default.
  ///   - completion: Gets ``ProducesResult/output`` once the operation has finished.
  /// - Returns: The chain's progress, as ``Foundation/Operation/chainProgress()`` makes it.
  @discardableResult
  public func enqueueWithProgress(
    on queue: OperationQueue = OperationQueue(),
    completion: @escaping @Sendable (Result<Output, any Error>) -> Void
  ) -> Progress {
    self.addResultBlock(block: completion)
    return self.enqueueWithProgress(on: queue)
  }
}

// MARK: - Adoption

extension ConcurrentOperation {
  /// The operation's progress, when no chain progress has adopted it yet; otherwise a stand-in
  /// that completes when the operation finishes.
  fileprivate func chainProgressChild() -> Progress {
    let progress = self.progress
    if self.claimProgressForChain() {
      return progress
    }
    let standIn = Progress(totalUnitCount: progress.totalUnitCount)
    standIn.completedUnitCount = min(progress.completedUnitCount, progress.totalUnitCount)
    if self.isFinished {
      standIn.completedUnitCount = standIn.totalUnitCount
    }
    // NB: This runs once the operation's finishing is over (after its did-finish blocks), which
    // can be after its dependents started.
    self.whenFinished {
      standIn.completedUnitCount = standIn.totalUnitCount
    }
    return standIn
  }
}
