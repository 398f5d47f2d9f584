public import Foundation

/// An observer that cancels a node that runs longer than a duration, with an
/// `OperationTimeoutError` that carries the duration.
///
/// The wait starts when the node's work starts and goes through the node context's
/// `operationDelayer`, so tests drive it without sleeping. It never cancels a node whose work has
/// returned, and it stops waiting when the node finishes.
///
/// ```swift
/// try graph.add(SlowRequest(), observers: [TimeoutObserver(timeout: .seconds(10))])
/// ```
///
/// It observes a ``ConcurrentOperation`` the same way, as danthorpe/Operations' does: when the
/// operation has neither finished nor been cancelled `timeout` after it started, it is cancelled
/// with the error, through the operation's ``ConcurrentOperation/context``'s delayer.
///
/// ```swift
/// download.addObserver(TimeoutObserver(timeout: 10))
/// ```
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

  public func didStart(_ node: NodeInfo) {
    let timeout = self.timeout
    self.startTimer(for: .node(node.id), delayer: node.operationContext.operationDelayer) {
      node.graph.cancel(node.id, with: [OperationTimeoutError(duration: timeout)])
    }
  }

  public func didFinish(_ node: NodeInfo, outcome: NodeOutcome) {
    self.stopTimer(for: .node(node.id))
  }

  public func didStart(_ operation: ConcurrentOperation) {
    let timeout = self.timeout
    self.startTimer(
      for: .operation(ObjectIdentifier(operation)),
      delayer: operation.context.operationDelayer
    ) {
      guard !operation.isFinished, !operation.isCancelRequested else { return }
      operation.cancelWithError(OperationTimeoutError(duration: timeout))
    }
  }

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
