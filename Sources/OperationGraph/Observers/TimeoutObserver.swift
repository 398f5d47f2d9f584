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
public final class TimeoutObserver: GraphObserver {
  /// How long a node may run.
  public let timeout: OperationDuration

  private let timers = Lock([GraphNodeID: Task<Void, Never>]())

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
}
