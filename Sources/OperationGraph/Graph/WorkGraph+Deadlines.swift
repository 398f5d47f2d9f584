import OperationCore
import OperationSynchronization

extension WorkGraph {
  /// Ends a running node at its deadline, with `error`, whatever its work does: a
  /// ``TimeoutObserver`` calls it when the node's time is up.
  ///
  /// The node fails with `error` (or, when it was cancelled before, ends cancelled with its
  /// cancellation errors and `error`): its will-finish and did-finish observers run now, its
  /// slot is freed, and its dependents proceed as after any failure. Its task is cancelled; work
  /// that ignores that goes on in the background, and what it returns is discarded. The node's
  /// exclusivity locks stay held until that work returns (its worker releases them then), so no
  /// other node of the same category runs beside it.
  ///
  /// A node that is not running (it has not started, or its work has returned) is left alone:
  /// a deadline never ends a node twice, and never one that has finished.
  ///
  /// - Parameters:
  ///   - node: A node of this graph.
  ///   - error: The error the node ends with (an `OperationTimeoutError`, say).
  package func end(_ node: GraphNodeID, atDeadlineWith error: any Error) {
    guard node.graph == self.identity else { return }
    let index = node.index
    let abandoned = self.state.withLock { state -> Abandonment? in
      guard state.machine.nodes.indices.contains(index),
        let (end, actions) = state.machine.abandon(index)
      else { return nil }
      if end == .failed {
        state.payloads[index].errors = [error]
      } else {
        state.payloads[index].cancellationErrors.append(error)
      }
      state.payloads[index].end = end
      let observers = state.payloads[index].observers
      // NB: The exclusivity categories stay with the node: its worker releases them when the
      // work returns, or at once if the work never started.
      defer { state.payloads[index].reporter = nil }
      return Abandonment(
        end: end,
        actions: actions,
        outcome: state.payloads[index].outcome,
        observers: observers,
        info: observers.isEmpty ? nil : self.info(index, in: state),
        reporter: state.payloads[index].reporter
      )
    }
    guard let abandoned else { return }
    self.perform(abandoned.actions)
    if let info = abandoned.info {
      for observer in abandoned.observers {
        observer.willFinish(info, outcome: abandoned.outcome)
      }
    }
    // NB: Read after the will-finish observers, as the contract of `GraphObserver` says.
    let now = self.context.operationClock.now()
    // NB: The node's unit is whole before its dependents can start. A node abandoned before its
    // work started has no child reporter yet, and its worker will not make one.
    if let reporter = abandoned.reporter {
      reporter.complete()
    } else {
      self.progress.advance(by: 1)
    }
    let continuation = self.state.withLock { state in
      state.payloads[index].finishedAt = now
      let continuation = state.machine.finished(
        index,
        end: abandoned.end,
        settles: abandoned.info == nil
      )
      state.record(continuation.actions, now: now)
      return continuation
    }
    if let info = abandoned.info {
      for observer in abandoned.observers {
        observer.didFinish(info, outcome: abandoned.outcome)
      }
    }
    // NB: After the did-finish observers, as in `runNode(_:)`.
    self.perform(continuation.actions)
    if abandoned.info != nil {
      self.perform(self.state.withLock { $0.machine.settled(index) })
    }
  }

  /// What a deadline decided under the lock, to perform after it.
  private struct Abandonment {
    let end: GraphStateMachine.End
    let actions: [GraphStateMachine.Action]
    let outcome: NodeOutcome
    let observers: [any GraphObserver]
    let info: NodeInfo?
    let reporter: ProgressReporter?
  }
}
