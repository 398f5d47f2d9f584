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

  private let timers = Lock([GraphNodeID: Task<Void, Never>]())

  private let operationTimers = Lock([ObjectIdentifier: Task<Void, Never>]())

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
    let delayer = node.operationContext.operationDelayer
    let timeout = self.timeout
    let timer = Task {
      do {
        try await delayer.delay(for: timeout)
      } catch {
        return
      }
      guard !Task.isCancelled else { return }
      node.graph.cancel(node.id, with: [OperationTimeoutError(duration: timeout)])
    }
    self.timers.withLock { $0[node.id] = timer }
  }

  public func didFinish(_ node: NodeInfo, outcome: NodeOutcome) {
    self.timers.withLock { $0.removeValue(forKey: node.id) }?.cancel()
  }

  public func didStart(_ operation: ConcurrentOperation) {
    let delayer = operation.context.operationDelayer
    let timeout = self.timeout
    let timer = Task {
      do {
        try await delayer.delay(for: timeout)
      } catch {
        return
      }
      guard !Task.isCancelled, !operation.isFinished, !operation.isCancelRequested else { return }
      operation.cancelWithError(OperationTimeoutError(duration: timeout))
    }
    self.operationTimers.withLock { $0[ObjectIdentifier(operation)] = timer }
  }

  public func didFinish(_ operation: ConcurrentOperation, errors: [any Error]) {
    self.operationTimers.withLock { $0.removeValue(forKey: ObjectIdentifier(operation)) }?.cancel()
  }
}
