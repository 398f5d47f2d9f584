@_spi(Warnings) import OperationCore
import OperationSynchronization

extension WorkGraph {
  /// Cancels a node.
  ///
  /// A node that has not started ends ``NodeOutcome/cancelled(_:)`` without running, once its
  /// own dependencies have finished (nodes that depend on it still run after it, as they would
  /// after a node that failed). A running node's task is cancelled, and the node ends cancelled
  /// whatever its work returns. A finished node stays as it was. Observers hear of the first
  /// cancellation only.
  ///
  /// - Parameters:
  ///   - node: A node of this graph.
  ///   - errors: Errors to end the node with (a timeout, say); cancelling a group with errors
  ///     cancels its children with a ``GraphParentCancelledError`` that carries them.
  public func cancel(_ node: some GraphNodeReference, with errors: [any Error] = []) {
    guard node.id.graph == self.identity else { return }
    let index = node.id.index
    let now = self.context.operationClock.now()
    let (actions, info) = self.state.withLock {
      state -> ([GraphStateMachine.Action], NodeInfo?) in
      guard state.machine.nodes.indices.contains(index),
        !state.machine.nodes[index].isEnding
      else { return ([], nil) }
      state.payloads[index].cancellationErrors += errors
      let (isFirst, actions) = state.machine.cancel(index)
      state.record(actions, now: now)
      return (actions, isFirst ? state.takeCancelNotification(index, info: self.info(_:in:)) : nil)
    }
    if let info {
      self.notifyCancelled(info, errors: errors)
    }
    self.perform(actions)
  }

  /// Cancels every node that has not finished, and every node added from now on.
  ///
  /// - Parameter errors: Errors to end the nodes with.
  public func cancelAll(with errors: [any Error] = []) {
    let now = self.context.operationClock.now()
    let (infos, actions) = self.state.withLock {
      state -> ([NodeInfo], [GraphStateMachine.Action]) in
      state.cancellationErrors += errors
      for index in state.machine.nodes.indices where !state.machine.nodes[index].isEnding {
        state.payloads[index].cancellationErrors += errors
      }
      let (cancelled, actions) = state.machine.cancelAll()
      state.record(actions, now: now)
      let infos = cancelled.compactMap { index in
        state.takeCancelNotification(index, info: self.info(_:in:))
      }
      return (infos, actions)
    }
    for info in infos {
      self.notifyCancelled(info, errors: errors)
    }
    self.perform(actions)
  }

  func notifyCancelled(_ info: NodeInfo, errors: [any Error]) {
    for observer in self.state.withLock({ $0.payloads[info.id.index].observers }) {
      observer.didCancel(info, errors: errors)
    }
  }
}
