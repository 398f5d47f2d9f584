public import Foundation
@_spi(Warnings) public import OperationCore
import OperationSynchronization

/// An asynchronous `Foundation.Operation` that works on Linux as on Apple platforms: override
/// ``execute()`` and call ``finish()`` when the work is done, from any thread.
///
/// ```swift
/// final class MyOperation: ConcurrentOperation, @unchecked Sendable {
///   override func execute() {
///     print("Hello World!")
///     finish()
///   }
/// }
///
/// let queue = OperationQueue()
/// MyOperation().enqueue(on: queue)
/// ```
///
/// It is 3Squared/PeakOperation's `ConcurrentOperation` and danthorpe/Operations' `Operation` in
/// one class:
/// - **PeakOperation**: the four notifications (``operationWillStart`` …), will/did start/finish
///   blocks, ``startDate``, ``finishDate``, ``executionTime``, a ``progress`` of 100 units that
///   completes on finish, and the chaining helpers of `Foundation.Operation`
///   (``Foundation/Operation/then(do:)``, ``Foundation/Operation/enqueue(on:)``).
/// - **Operations**: conditions (``addCondition(_:)``), observers (``addObserver(_:)``),
///   ``finish(_:)-([Error])`` with errors, ``errors``, ``failed``, ``cancelWithError(_:)``
///   and ``produceOperation(_:)``.
///
/// Both libraries announce their state through KVO dependent keys, which swift-corelibs-foundation
/// lacks, so on Linux their queues never learn that an operation finished. This class announces
/// `isExecuting` and `isFinished` explicitly, which every `OperationQueue` understands, and
/// evaluates its conditions and takes its mutual-exclusion locks itself when the queue starts it,
/// so a plain `OperationQueue` is enough.
///
/// ## Lifecycle
///
/// When the queue calls `start()`:
/// 1. A cancelled operation finishes at once without executing.
/// 2. An operation with conditions is marked executing (it holds its queue slot), takes the locks
///    of its mutual-exclusion categories (in name order, first come first served, process-wide),
///    runs its conditions' dependencies, then evaluates every condition concurrently. A failure
///    finishes it with the failures, without executing; a cancel while it waits finishes it
///    without executing.
/// 3. Will-start: the notification, the blocks, the observers. Then the start date, did-start
///    (notification, blocks, observers), and ``execute()``.
/// 4. ``finish(_:)-([Error])`` (the first call only): the ``finished(_:)`` hook, will-finish
///    (notification, blocks, observers), the finish date, the release of the locks, the
///    progress completed, `isFinished`; then did-finish (notification, blocks, observers).
///
/// An operation cancelled before it executes (before it starts, while it waits for its conditions,
/// or from a will-start or did-start block or observer) finishes without executing. Cancelling an
/// executing operation does not finish it: ``execute()`` checks `isCancelled` (or overrides
/// `cancel()`) and calls ``finish()`` as Foundation asks; the operations of this module do. A
/// `TimeoutObserver` is the exception: at its deadline it cancels the operation and finishes
/// it, whatever ``execute()`` does, and a later ``finish()`` is ignored.
///
/// Subclasses restate `@unchecked Sendable` (Swift 6 asks every `Operation` subclass to) and
/// guard their own mutable state: ``execute()``, `cancel()` and ``finish()`` can run on different
/// threads.
open class ConcurrentOperation: Foundation.Operation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates `Foundation.Operation`'s conformance. Every stored
  // property this class adds is a `let` of a `Sendable` type or lives in `lifecycle`, which is read
  // and written only inside `withLock` (in this file and its `ConcurrentOperation+*` siblings),
  // and no user code runs while it is held.
  let lifecycle = Lock(Lifecycle())

  /// The operation's progress: 100 units, completed when it finishes.
  ///
  /// Report partial progress by setting its `completedUnitCount`; ``Foundation/Operation/chainProgress()``
  /// adds it to a chain's.
  public let progress = Progress(totalUnitCount: 100)

  /// Creates an operation.
  public override init() {
    super.init()
  }

  // MARK: - Foundation.Operation

  public final override var isAsynchronous: Bool { true }

  public final override var isExecuting: Bool {
    self.lifecycle.withLock { $0.phase == .preparing || $0.phase == .executing }
  }

  public final override var isFinished: Bool {
    self.lifecycle.withLock { $0.phase == .finished }
  }

  /// Starts the operation; the queue calls it. Do not override it: override ``execute()``.
  public final override func start() {
    let queue = OperationQueue.current
    let next = self.lifecycle.withLock { state -> StartAction in
      guard state.phase == .ready else { return .ignore }
      state.queue = WeakQueue(queue: queue)
      state.queueName = queue?.name
      if state.isCancelRequested {
        return .finishWithoutExecuting
      }
      guard !state.conditions.isEmpty else { return .execute }
      return .prepare(state.conditions)
    }
    switch next {
    case .ignore:
      reportWarning(.concurrentOperationStartedTwice(self.description))
    case .finishWithoutExecuting:
      self.finish([])
    case .execute:
      self.beginExecuting(isMarkedExecuting: false)
    case .prepare(let conditions):
      self.prepare(conditions)
    }
  }

  /// Cancels the operation.
  ///
  /// An operation that has not started finishes without executing when its queue starts it; one
  /// that waits for its conditions or mutual-exclusion locks finishes at once, without executing.
  /// An executing one is only marked cancelled: ``execute()`` decides when to finish. The
  /// observers' ``OperationObserver/didCancel(_:errors:)`` runs once, at the first cancel, and
  /// the operations on ``internalQueue`` are cancelled.
  open override func cancel() {
    let (isFirst, observers, errors, preparation, internalQueue) = self.lifecycle.withLock {
      state in
      defer { state.isCancelRequested = true }
      return (
        !state.isCancelRequested, state.observers, state.cancellationErrors, state.preparation,
        state.internalQueue
      )
    }
    super.cancel()
    guard isFirst else { return }
    preparation?.cancel()
    internalQueue?.cancelAllOperations()
    for observer in observers {
      observer.didCancel(self, errors: errors)
    }
  }

  // MARK: - Subclassing

  /// Does the operation's work; override it, without calling `super`, and call ``finish()``
  /// when the work is done, on any thread.
  ///
  /// The default reports that it was not overridden and finishes.
  open func execute() {
    reportWarning(.concurrentOperationExecuteNotOverridden(String(describing: type(of: self))))
    self.finish()
  }

  /// Finishes the operation without errors.
  ///
  /// Only the first call to this method or ``finish(_:)-([Error])`` counts. Override it to
  /// act before finishing (PeakOperation's `RetryingOperation` executes again instead); call
  /// `super.finish()` to finish.
  open func finish() {
    self.finish([])
  }

  /// Finishes the operation with errors (none for success): Operations' `finish(_:)`.
  ///
  /// Only the first call counts. The errors are added to ``errors``. After a deadline ended the
  /// operation (see `TimeoutObserver`), the work's own call changes nothing but release the
  /// mutual-exclusion locks that the operation kept while its work ran.
  ///
  /// - Parameter errors: Why the operation failed; empty when it succeeded.
  open func finish(_ errors: [any Error]) {
    let (isFirst, lateCategories) = self.lifecycle.withLock { state -> (Bool, [String]) in
      guard !state.isFinishing else {
        // NB: The work is over: the locks that a deadline left with it go now, once.
        guard state.isEndedAtDeadline else { return (false, []) }
        defer { state.heldCategories = [] }
        return (false, state.heldCategories)
      }
      state.isFinishing = true
      state.errors.append(contentsOf: errors)
      return (true, [])
    }
    ExclusivityLocks.shared.release(lateCategories)
    guard isFirst else { return }
    self.completeFinishing()
  }

  /// Ends an executing operation at its deadline: cancels it with `error` and finishes it at
  /// once, whatever its ``execute()`` does; a `TimeoutObserver` calls it when the time is up.
  ///
  /// The error joins ``errors`` (and the errors its observers' `didCancel` gets, when this is
  /// its first cancellation). `cancel()` runs, so that work that heeds cancellation stops, and
  /// the operation finishes without waiting for it: `isFinished` becomes `true` and its queue
  /// slot is freed. Its mutual-exclusion locks stay held until the work calls ``finish()``, so
  /// that nothing of the same category runs beside work that is still going; that late call is
  /// otherwise ignored. An operation that has not started executing, or that has started
  /// finishing, is left alone.
  ///
  /// - Parameter error: The error the operation ends with (an `OperationTimeoutError`, say).
  package func end(atDeadlineWith error: any Error) {
    let claimed = self.lifecycle.withLock { state in
      guard state.phase == .executing, !state.isFinishing else { return false }
      // NB: Claimed now, under the lock, so that a `finish` from the work that comes while
      // `cancel()` runs is the late one.
      state.isFinishing = true
      state.isEndedAtDeadline = true
      state.errors.append(error)
      if !state.isCancelRequested {
        state.cancellationErrors.append(error)
      }
      return true
    }
    guard claimed else { return }
    self.cancel()
    self.completeFinishing()
  }

  /// The finishing sequence, once a finish has been claimed: the hook, will-finish, the finish
  /// date, `isFinished`, did-finish.
  private func completeFinishing() {
    let errors = self.errors
    self.finished(errors)

    self.post(Self.operationWillFinish)
    let (willFinishBlocks, observers) = self.lifecycle.withLock {
      ($0.willFinishBlocks, $0.observers)
    }
    for block in willFinishBlocks {
      block()
    }
    for observer in observers {
      observer.willFinish(self, errors: errors)
    }

    let finishDate = self.context.operationClock.now()
    let (categories, managesOwnProgress, wasExecuting) = self.lifecycle.withLock { state in
      state.finishDate = finishDate
      // NB: An operation ended at its deadline keeps its locks until its work finishes.
      let categories = state.isEndedAtDeadline ? [] : state.heldCategories
      if !state.isEndedAtDeadline {
        state.heldCategories = []
      }
      return (
        categories, state.managesOwnProgress,
        state.phase == .preparing || state.phase == .executing
      )
    }
    ExclusivityLocks.shared.release(categories)
    if !managesOwnProgress {
      self.progress.completedUnitCount = self.progress.totalUnitCount
    }
    self.willChangeValue(forKey: "isFinished")
    if wasExecuting {
      self.willChangeValue(forKey: "isExecuting")
    }
    self.lifecycle.withLock { $0.phase = .finished }
    if wasExecuting {
      self.didChangeValue(forKey: "isExecuting")
    }
    self.didChangeValue(forKey: "isFinished")

    self.post(Self.operationDidFinish)
    let didFinishBlocks = self.lifecycle.withLock { $0.didFinishBlocks }
    for block in didFinishBlocks {
      block()
    }
    for observer in observers {
      observer.didFinish(self, errors: errors)
    }
    let waiters = self.lifecycle.withLock { state in
      state.hasCompletedFinishing = true
      defer { state.finishWaiters = [] }
      return state.finishWaiters
    }
    for waiter in waiters {
      waiter()
    }
  }

  /// Finishes the operation with an error, or without one for `nil`.
  ///
  /// - Parameter error: Why the operation failed, or `nil`.
  public final func finish(_ error: (any Error)?) {
    self.finish(error.map { [$0] } ?? [])
  }

  /// Called once with the operation's errors as it starts finishing, before the will-finish
  /// events: Operations' `finished(_:)` hook. The default does nothing.
  ///
  /// - Parameter errors: The operation's ``errors``.
  open func finished(_ errors: [any Error]) {}

  // MARK: - Errors and cancellation

  /// The errors the operation finished or was cancelled with, in the order they were given.
  public var errors: [any Error] {
    self.lifecycle.withLock { $0.errors }
  }

  /// Whether the operation has errors: it failed, a condition failed, or it was cancelled with
  /// an error.
  public var failed: Bool {
    self.lifecycle.withLock { !$0.errors.isEmpty }
  }

  /// Adds an error (none for `nil`) and cancels the operation.
  ///
  /// - Parameter error: Why it was cancelled, or `nil`.
  public final func cancelWithError(_ error: (any Error)?) {
    self.cancelWithErrors(error.map { [$0] } ?? [])
  }

  /// Adds errors and cancels the operation. After the operation started finishing, the errors
  /// are not added.
  ///
  /// - Parameter errors: Why it was cancelled.
  open func cancelWithErrors(_ errors: [any Error]) {
    self.lifecycle.withLock { state in
      guard !state.isFinishing else { return }
      state.errors.append(contentsOf: errors)
      if !state.isCancelRequested {
        state.cancellationErrors.append(contentsOf: errors)
      }
    }
    self.cancel()
  }

  // MARK: - Context

  /// The context of the operation: its clock dates ``startDate`` and ``finishDate``, and its
  /// delayer times ``DelayOperation``, `TimeoutObserver` and the waits of the retrying
  /// operations, so tests can inject both.
  public var context: OperationContext {
    get { self.lifecycle.withLock { $0.context } }
    set { self.lifecycle.withLock { $0.context = newValue } }
  }

  // MARK: - Internal queue

  /// A queue of the operation's own, made when first used, for the operations it runs inside
  /// itself (a group's children, say). Cancelling the operation cancels its operations.
  public var internalQueue: OperationQueue {
    self.lifecycle.withLock { state in
      if let queue = state.internalQueue {
        return queue
      }
      let queue = OperationQueue()
      queue.name = "\(type(of: self)).internalQueue"
      state.internalQueue = queue
      return queue
    }
  }

  // MARK: - Description

  /// `"<TypeName>(name: '<name>', state: <0 ready, 1 executing, 2 finished>)"`, as PeakOperation
  /// writes it.
  open override var description: String {
    let phase = self.lifecycle.withLock { $0.phase }
    let code =
      switch phase {
      case .ready: 0
      case .preparing, .executing: 1
      case .finished: 2
      }
    return "\(type(of: self))(name: '\(self.name ?? "nil")', state: \(code))"
  }

  // MARK: - Private

  func beginExecuting(isMarkedExecuting: Bool) {
    self.post(Self.operationWillStart)
    let (willStartBlocks, observers) = self.lifecycle.withLock {
      ($0.willStartBlocks, $0.observers)
    }
    for block in willStartBlocks {
      block()
    }
    for observer in observers {
      observer.willStart(self)
    }

    let startDate = self.context.operationClock.now()
    if !isMarkedExecuting {
      self.willChangeValue(forKey: "isExecuting")
    }
    self.lifecycle.withLock { state in
      state.phase = .executing
      state.startDate = startDate
    }
    if !isMarkedExecuting {
      self.didChangeValue(forKey: "isExecuting")
    }

    self.post(Self.operationDidStart)
    let didStartBlocks = self.lifecycle.withLock { $0.didStartBlocks }
    for block in didStartBlocks {
      block()
    }
    for observer in observers {
      observer.didStart(self)
    }
    let shouldExecute = self.lifecycle.withLock { !$0.isCancelRequested && !$0.isFinishing }
    if shouldExecute {
      self.execute()
    } else {
      self.finish([])
    }
  }

  /// Posts one of the four notifications, with the operation's name and its queue's.
  private func post(_ name: Notification.Name) {
    let queueName = self.lifecycle.withLock { $0.queueName }
    var userInfo = [String: String]()
    if let name = self.name {
      userInfo["name"] = name
    }
    if let queueName {
      userInfo["queue"] = queueName
    }
    NotificationCenter.default.post(name: name, object: self, userInfo: userInfo)
  }
}
