import OperationCore
import OperationSynchronization

/// A thread-safe tree of progress: Foundation's `Progress` model, without KVO, for any thread
/// and any isolation.
///
/// A reporter counts whole units of work out of a total. Work that splits into parts gives each
/// part a child with ``makeChild(pendingUnitCount:totalUnitCount:)``: the child's fraction counts
/// for its *pending* units of the parent while it runs, and its completion adds those units to
/// the parent's ``OperationProgress/completedUnitCount``.
///
/// ```swift
/// let reporter = ProgressReporter(totalUnitCount: 2)
/// let download = reporter.makeChild(pendingUnitCount: 1)
/// let decode = reporter.makeChild(pendingUnitCount: 1)
///
/// download.report(fractionCompleted: 0.5)  // reporter: 0/2, 25%
/// download.complete()  // reporter: 1/2, 50%
/// decode.complete()  // reporter: 2/2, finished
/// ```
///
/// Observe a reporter with ``onChange(_:)`` or ``updates``; with `OperationQueueCompat`
/// imported, mirror it into a Foundation `Progress` with `foundationProgress()`.
///
/// Contract:
/// - Counts are clamped: the completed units never go below 0 or above the total, and a negative
///   total is taken as 0.
/// - A child that finishes (its completed units reach its total, or ``complete()`` is called) is
///   folded into its parent's completed units and then forgotten by the parent, so thousands of
///   finished children cost nothing. Changes to a child after it finished do not reach the parent.
/// - No handler runs while a lock of the library is held.
///
/// - Complexity: A change walks up to the root, so it costs O(depth) plus the number of
///   subscribers along the way; making a child is O(1).
public final class ProgressReporter: Sendable {
  // NB: Lock order is child before parent, never the reverse: a change locks the reporter, then,
  // while still holding it, its parent, and so on up to the root, so that a parent receives its
  // children's changes in the order they happened. Nothing locks a child while holding its
  // parent. Handlers are only collected under the locks and called after every lock is released.
  private let state: Lock<State>
  private let parent: ProgressReporter?
  private let pendingUnitCount: Int64
  private let idInParent: Int

  /// Creates a root reporter.
  ///
  /// - Parameter totalUnitCount: The units of the whole work; 100 by default, so that units
  ///   read as percentages.
  public init(totalUnitCount: Int64 = 100) {
    self.state = Lock(State(totalUnitCount: max(totalUnitCount, 0)))
    self.parent = nil
    self.pendingUnitCount = 0
    self.idInParent = 0
  }

  private init(parent: ProgressReporter, pendingUnitCount: Int64, totalUnitCount: Int64, id: Int) {
    self.state = Lock(State(totalUnitCount: max(totalUnitCount, 0)))
    self.parent = parent
    self.pendingUnitCount = pendingUnitCount
    self.idInParent = id
  }

  /// The current progress.
  public var progress: OperationProgress {
    self.state.withLock { $0.progress }
  }

  /// The units of the whole work.
  ///
  /// It may change while the work runs, for example when a graph adds nodes; the completed units
  /// are clamped to a smaller total. A negative value is taken as 0.
  public var totalUnitCount: Int64 {
    get { self.state.withLock { $0.totalUnitCount } }
    set {
      self.change { state in
        state.totalUnitCount = max(newValue, 0)
        state.completedUnitCount = min(state.completedUnitCount, state.totalUnitCount)
      }
    }
  }

  /// Changes the total by a number of units in one step, so that concurrent changes add up (two
  /// `totalUnitCount += 1` from two threads may lose one).
  ///
  /// - Parameter units: The units to add to the total; negative to take some away. The total
  ///   stays at 0 or more, and the completed units at most the total.
  public func increaseTotalUnitCount(by units: Int64) {
    self.change { state in
      state.totalUnitCount = max(state.totalUnitCount + units, 0)
      state.completedUnitCount = min(state.completedUnitCount, state.totalUnitCount)
    }
  }

  /// Adds whole units of completed work, clamped to the total.
  ///
  /// - Parameter units: The units done since the last report; 1 by default.
  public func advance(by units: Int64 = 1) {
    self.change { state in
      state.setCompleted(state.completedUnitCount.addingReportingOverflow(units).partialValue)
    }
  }

  /// Sets the whole units of completed work, clamped to 0...``totalUnitCount``.
  ///
  /// - Parameter units: The units done.
  public func setCompletedUnitCount(_ units: Int64) {
    self.change { $0.setCompleted(units) }
  }

  /// Sets the completed units to a fraction of the total, rounded down.
  ///
  /// A fraction outside 0...1 is clamped; `nan` is taken as 0.
  ///
  /// - Parameter fractionCompleted: The part of the work that is done.
  public func report(fractionCompleted: Double) {
    let fraction = fractionCompleted.isNaN ? 0 : min(max(fractionCompleted, 0), 1)
    self.change { state in
      let units =
        fraction == 1
        ? state.totalUnitCount
        : Int64((fraction * Double(state.totalUnitCount)).rounded(.down))
      state.setCompleted(units)
    }
  }

  /// Completes the work: the completed units become the total.
  ///
  /// Calling it again does nothing more. A child's completion adds all of its pending units to
  /// its parent, even when its total is 0, and the parent forgets the child.
  public func complete() {
    self.change(folds: true) { $0.completedUnitCount = $0.totalUnitCount }
  }

  /// Makes a child whose fraction counts for `pendingUnitCount` units of this reporter.
  ///
  /// While the child runs, this reporter's ``OperationProgress/fractionCompleted`` counts
  /// `pendingUnitCount × child.fractionCompleted` units for it; when the child finishes, its
  /// pending units join this reporter's completed units.
  ///
  /// ```swift
  /// let reporter = ProgressReporter(totalUnitCount: 100)
  /// let child = reporter.makeChild(pendingUnitCount: 50, totalUnitCount: 4)
  /// child.advance(by: 2)  // reporter: 25%
  /// ```
  ///
  /// - Parameters:
  ///   - pendingUnitCount: The units of this reporter that the child stands for (at least 0).
  ///   - totalUnitCount: The child's own units; 100 by default.
  /// - Returns: The child.
  public func makeChild(pendingUnitCount: Int64, totalUnitCount: Int64 = 100) -> ProgressReporter {
    let id = self.state.withLock { state in
      let id = state.nextChildID
      state.nextChildID += 1
      state.childContributions[id] = 0
      return id
    }
    return ProgressReporter(
      parent: self,
      pendingUnitCount: max(pendingUnitCount, 0),
      totalUnitCount: totalUnitCount,
      id: id
    )
  }

  /// `count` shares of `total` units: `total / count` each, the remainder to the last share.
  ///
  /// This is how a chain splits its units over its steps:
  ///
  /// ```swift
  /// ProgressReporter.evenShares(of: 100, count: 3)  // [33, 33, 34]
  /// ```
  ///
  /// - Parameters:
  ///   - total: The units to share; a negative total is taken as 0.
  ///   - count: The number of shares.
  /// - Returns: The shares, which add up to `total`; empty when `count` is 0 or less.
  /// - Complexity: O(`count`).
  public static func evenShares(of total: Int64, count: Int) -> [Int64] {
    guard count > 0 else { return [] }
    let total = max(total, 0)
    let share = total / Int64(count)
    var shares = [Int64](repeating: share, count: count)
    shares[count - 1] += total - share * Int64(count)
    return shares
  }

  /// Calls `handler` with the new progress after every change, until the subscription is
  /// cancelled or released.
  ///
  /// Delivery contract:
  /// - The handler is not called with the current progress, only after changes.
  /// - It is called on the thread that made the change, after the library released its locks
  ///   (a change made inside a store's `withExclusiveAccess` reaches it when that returns).
  /// - Calls are never concurrent and never go back in time: when changes race on several
  ///   threads, a change that a newer one overtook is skipped, so the handler may miss an
  ///   intermediate value but always ends with the newest.
  ///
  /// ```swift
  /// let subscription = reporter.onChange { progress in
  ///   print(progress.fractionCompleted)
  /// }
  /// ```
  ///
  /// - Parameter handler: Receives each new progress.
  /// - Returns: A subscription that ends the calls when cancelled or released.
  public func onChange(
    _ handler: @escaping @Sendable (OperationProgress) -> Void
  ) -> OperationSubscription {
    let subscriber = Subscriber(handler)
    _ = self.add(subscriber)
    return OperationSubscription { [weak self] in
      subscriber.cancel()
      self?.remove(subscriber)
    }
  }

  /// Whether this reporter's lock is held now, by any thread; for tests of the rule that no
  /// handler runs under a lock.
  package var isLockedForTesting: Bool {
    self.state.isLocked
  }

  /// How many children this reporter still tracks (the unfinished ones); for tests.
  package var unfinishedChildCountForTesting: Int {
    self.state.withLock { $0.childContributions.count }
  }

  /// How many subscribers this reporter holds; for tests.
  package var subscriberCountForTesting: Int {
    self.state.withLock { $0.subscribers.count }
  }
}

// MARK: - Changes

extension ProgressReporter {
  /// Changes this reporter and lets its ancestors and every subscriber along the way know.
  private func change(folds: Bool = false, _ body: (inout State) -> Void) {
    var effects = Effects()
    self.change(folds: folds, effects: &effects, body)
    guard !effects.isEmpty else { return }
    // NB: A change made under a store's or a client's lock (in a `withExclusiveAccess` closure,
    // say) reaches the handlers once that lock is released too.
    LibraryLocks.afterRelease { [effects] in effects.deliver() }
  }

  /// Changes this reporter under its lock, then, still holding it, its parent (and so on), and
  /// collects the deliveries that the changes call for.
  private func change(folds: Bool, effects: inout Effects, _ body: (inout State) -> Void) {
    self.state.withLock { state in
      let before = state.progress
      body(&state)
      let after = state.progress
      let changed = after != before
      if changed {
        state.version &+= 1
        effects.collect(state.subscribers, version: state.version, progress: after)
      }
      guard let parent = self.parent, !state.isFoldedIntoParent else { return }
      let (id, pending) = (self.idInParent, self.pendingUnitCount)
      if folds || after.isFinished {
        state.isFoldedIntoParent = true
        parent.change(folds: false, effects: &effects) { $0.foldChild(id: id, pending: pending) }
      } else if changed {
        let contribution = Double(pending) * after.fractionCompleted
        parent.change(folds: false, effects: &effects) {
          $0.setContribution(contribution, ofChild: id)
        }
      }
    }
  }
}

// MARK: - Subscribers

extension ProgressReporter {
  /// Adds a subscriber unless it was cancelled, and returns the progress and version it starts
  /// from.
  package func add(_ subscriber: Subscriber) -> (version: UInt64, progress: OperationProgress) {
    self.state.withLock { state in
      // NB: A subscriber cancelled before it was added is not added: its cancellation marks it
      // first and then removes it, so either the mark is seen here or the removal follows.
      if !subscriber.isCancelled {
        state.subscribers.append(subscriber)
      }
      return (state.version, state.progress)
    }
  }

  /// Removes a subscriber.
  package func remove(_ subscriber: Subscriber) {
    self.state.withLock { state in
      state.subscribers.removeAll { $0 === subscriber }
    }
  }

  /// A handler that receives progress one call at a time, newest last.
  package final class Subscriber: Sendable {
    private struct Delivery {
      var lastVersion: UInt64?
      var isDelivering = false
      var pending: OperationProgress?
      var isCancelled = false
    }

    private let handler: @Sendable (OperationProgress) -> Void
    private let delivery = Lock(Delivery())

    package init(_ handler: @escaping @Sendable (OperationProgress) -> Void) {
      self.handler = handler
    }

    var isCancelled: Bool {
      self.delivery.withLock { $0.isCancelled }
    }

    func cancel() {
      self.delivery.withLock { $0.isCancelled = true }
    }

    /// Calls the handler with `progress` unless a newer version was delivered already; a thread
    /// that finds another one delivering leaves the value to it.
    package func deliver(version: UInt64, progress: OperationProgress) {
      let delivers = self.delivery.withLock { delivery in
        guard !delivery.isCancelled else { return false }
        if let last = delivery.lastVersion, version <= last { return false }
        delivery.lastVersion = version
        guard !delivery.isDelivering else {
          delivery.pending = progress
          return false
        }
        delivery.isDelivering = true
        return true
      }
      guard delivers else { return }
      var next = progress
      while true {
        self.handler(next)
        let pending = self.delivery.withLock { delivery -> OperationProgress? in
          guard !delivery.isCancelled, let pending = delivery.pending else {
            delivery.isDelivering = false
            delivery.pending = nil
            return nil
          }
          delivery.pending = nil
          return pending
        }
        guard let pending else { return }
        next = pending
      }
    }
  }
}

// MARK: - State

extension ProgressReporter {
  private struct State {
    var completedUnitCount: Int64 = 0
    var totalUnitCount: Int64
    /// The units of unfinished children that are done: the sum of `childContributions`.
    var partialUnitCount: Double = 0
    /// Each unfinished child's done units, `pending × fraction`, by the child's id.
    var childContributions = [Int: Double]()
    var nextChildID = 0
    /// Counts the changes, so that deliveries racing on several threads keep their order.
    var version: UInt64 = 0
    var subscribers = [Subscriber]()
    var isFoldedIntoParent = false

    init(totalUnitCount: Int64) {
      self.totalUnitCount = totalUnitCount
    }

    var progress: OperationProgress {
      OperationProgress(
        completedUnitCount: self.completedUnitCount,
        totalUnitCount: self.totalUnitCount,
        partialUnitCount: self.partialUnitCount
      )
    }

    mutating func setCompleted(_ units: Int64) {
      self.completedUnitCount = min(max(units, 0), self.totalUnitCount)
    }

    mutating func setContribution(_ contribution: Double, ofChild id: Int) {
      guard let old = self.childContributions[id] else { return }
      self.childContributions[id] = contribution
      self.partialUnitCount += contribution - old
    }

    mutating func foldChild(id: Int, pending: Int64) {
      guard let old = self.childContributions.removeValue(forKey: id) else { return }
      // NB: A running sum keeps folding O(1) with thousands of unfinished children; it is reset
      // exactly when the last child leaves, so that its rounding errors do not outlive them.
      self.partialUnitCount =
        self.childContributions.isEmpty ? 0 : max(self.partialUnitCount - old, 0)
      self.setCompleted(self.completedUnitCount.addingReportingOverflow(pending).partialValue)
    }
  }

  /// Deliveries collected under the locks, made once they are all released.
  private struct Effects {
    private var deliveries = [(Subscriber, UInt64, OperationProgress)]()

    var isEmpty: Bool {
      self.deliveries.isEmpty
    }

    mutating func collect(_ subscribers: [Subscriber], version: UInt64, progress: OperationProgress)
    {
      for subscriber in subscribers {
        self.deliveries.append((subscriber, version, progress))
      }
    }

    func deliver() {
      for (subscriber, version, progress) in self.deliveries {
        subscriber.deliver(version: version, progress: progress)
      }
    }
  }
}
