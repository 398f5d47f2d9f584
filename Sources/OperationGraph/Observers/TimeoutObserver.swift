public import Foundation
import OperationSynchronization

/// An observer that ends a node or an operation that runs longer than a duration, at that
/// deadline, with an `OperationTimeoutError` that carries the duration.
///
/// The wait starts when the work starts (at `didStart`) and goes through the context's
/// `operationDelayer`, so tests drive it without sleeping. At the deadline, the work is
/// cancelled and the node or operation **ends at once**, whether or not the work heeds the
/// cancellation, as the core's `timeout(after:)` ends a run:
///
/// - A graph's node fails with the timeout error (a node that was cancelled before ends
///   cancelled, with the timeout error among its errors). Its observers hear `willFinish` and
///   `didFinish` then, its slot under the graph's concurrency limit and its mutual exclusion
///   locks are freed, and its dependents proceed as after any failure, so the graph's `run()`
///   does not wait for work that ignores cancellation. That work goes on in the background
///   until it returns, and what it returns is discarded.
/// - A ``ConcurrentOperation`` is cancelled with the timeout error and finishes: `isFinished`
///   becomes `true`, which frees its `OperationQueue` slot, its ``ConcurrentOperation/errors``
///   hold the timeout error, and ``Foundation/Operation/untilFinished()`` throws. A `finish()`
///   that its work calls later is ignored: the first finish counts.
///
/// The timer never ends a node or an operation that has finished, or whose work has returned,
/// and it stops when the node or the operation finishes.
///
/// ```swift
/// try graph.add(SlowRequest(), observers: [TimeoutObserver(timeout: .seconds(10))])
/// ```
///
/// It observes a ``ConcurrentOperation`` as danthorpe/Operations' observer did, through the
/// operation's ``ConcurrentOperation/context``'s delayer, except that it also finishes an
/// operation that does not finish when cancelled:
///
/// ```swift
/// download.addObserver(TimeoutObserver(timeout: 10))
/// ```
///
/// > Important: Work that ignores cancellation still runs after the deadline, holding whatever
/// > it holds outside the graph or the queue. The node's mutual exclusion locks are released at
/// > the deadline, so another node of the same category may start while it does.
public final class TimeoutObserver: GraphObserver, OperationObserver {
  /// How long a node may run.
  public let timeout: OperationDuration

  private let timers = Lock([TimerKey: Task<Void, Never>]())

  /// Creates the observer.
  ///
  /// - Parameter timeout: How long a node may run.
  public init(timeout: OperationDuration) {
    self.timeout = timeout
  }

  /// Creates the observer.
  ///
  /// - Parameter timeout: How long a node may run.
  @_disfavoredOverload
  public convenience init(timeout: Duration) {
    self.init(timeout: OperationDuration(duration: timeout))
  }

  /// Creates the observer with a timeout in seconds, as Operations' takes it.
  ///
  /// - Parameter timeout: How many seconds a node or an operation may run.
  public convenience init(timeout: TimeInterval) {
    self.init(timeout: .seconds(timeout))
  }

  /// Starts the node's timer: at the deadline, the node ends with the timeout error.
  public func didStart(_ node: NodeInfo) {
    let timeout = self.timeout
    self.startTimer(for: .node(node.id), delayer: node.operationContext.operationDelayer) {
      node.graph.end(node.id, atDeadlineWith: OperationTimeoutError(duration: timeout))
    }
  }

  /// Stops the node's timer.
  public func didFinish(_ node: NodeInfo, outcome: NodeOutcome) {
    self.stopTimer(for: .node(node.id))
  }

  /// Starts the operation's timer: at the deadline, the operation is cancelled with the timeout
  /// error and finishes.
  public func didStart(_ operation: ConcurrentOperation) {
    let timeout = self.timeout
    self.startTimer(
      for: .operation(ObjectIdentifier(operation)),
      delayer: operation.context.operationDelayer
    ) {
      operation.end(atDeadlineWith: OperationTimeoutError(duration: timeout))
    }
  }

  /// Stops the operation's timer.
  public func didFinish(_ operation: ConcurrentOperation, errors: [any Error]) {
    self.stopTimer(for: .operation(ObjectIdentifier(operation)))
  }

  /// What a timer runs for: a graph's node or an operation.
  private enum TimerKey: Hashable {
    case node(GraphNodeID)
    case operation(ObjectIdentifier)
  }

  private func startTimer(
    for key: TimerKey,
    delayer: any OperationDelayer & Sendable,
    onTimeout: @escaping @Sendable () -> Void
  ) {
    let timeout = self.timeout
    let timer = Task {
      do {
        try await delayer.delay(for: timeout)
      } catch {
        return
      }
      guard !Task.isCancelled else { return }
      onTimeout()
    }
    self.timers.withLock { $0[key] = timer }
  }

  private func stopTimer(for key: TimerKey) {
    self.timers.withLock { $0.removeValue(forKey: key) }?.cancel()
  }
}
