import OperationSynchronization

/// An observer that ends a node that runs longer than a duration, at that deadline, with an
/// `OperationTimeoutError` that carries the duration.
///
/// The wait starts when the work starts (at `didStart`) and goes through the context's
/// `operationDelayer`, so tests drive it without sleeping. At the deadline, the node's work is
/// cancelled and the node **ends at once**, whether or not the work heeds the cancellation, as
/// the core's `timeout(after:)` ends a run: it fails with the timeout error (a node that was
/// cancelled before ends cancelled, with the timeout error among its errors). Its observers hear
/// `willFinish` and `didFinish` then, its slot under the graph's concurrency limit is freed, and
/// its dependents proceed as after any failure, so the graph's `run()` does not wait for work
/// that ignores cancellation. That work goes on in the background until it returns, and what it
/// returns is discarded.
///
/// The timer never ends a node that has finished, or whose work has returned, and it stops when
/// the node finishes.
///
/// ```swift
/// try graph.add(SlowRequest(), observers: [TimeoutObserver(timeout: .seconds(10))])
/// ```
///
/// With `OperationQueueCompat` imported, the same observer also ends a `ConcurrentOperation` on
/// an `OperationQueue` at its deadline, as danthorpe/Operations' `TimeoutObserver` did.
///
/// > Important: Work that ignores cancellation still runs after the deadline, holding whatever
/// > it holds outside the graph. The node's mutual exclusion locks stay held until that work
/// > returns, so another node of the same category never runs beside it; the node's answer, its
/// > dependents and the graph's run do not wait for them.
public final class TimeoutObserver: GraphObserver {
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

  /// What a timer runs for: a graph's node, or an object (an operation on a queue).
  package enum TimerKey: Hashable, Sendable {
    case node(GraphNodeID)
    case object(ObjectIdentifier)
  }

  /// Starts a timer that calls `onTimeout` at the deadline, unless it is stopped first.
  package func startTimer(
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

  /// Stops a timer; nothing happens for one that was stopped or has fired.
  package func stopTimer(for key: TimerKey) {
    self.timers.withLock { $0.removeValue(forKey: key) }?.cancel()
  }
}
