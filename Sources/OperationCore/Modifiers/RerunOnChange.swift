import OperationSynchronization

extension StatefulOperationRequest where State: Sendable {
  /// Reruns the operation when a run specification becomes satisfied.
  ///
  /// ```swift
  /// Post.query(for: 1)
  ///   .rerunOnChange(of: .connected(to: LinuxNetworkObserver.startingShared()))
  /// ```
  ///
  /// When the specification changes from unsatisfied to satisfied, a store reruns the operation
  /// if it has at least one subscriber, its value is stale, and its automatic running is enabled.
  /// Any other change (for example the network going offline again) cancels the rerun that the
  /// modifier started before, if it is still running; runs started elsewhere are left alone.
  ///
  /// - Parameter specification: The specification to watch, evaluated in the store's context.
  /// - Returns: The modified operation.
  public func rerunOnChange<Specification: OperationRunSpecification & Sendable>(
    of specification: Specification
  ) -> ControlledOperation<Self, _RerunOnChangeController<State, Specification>> {
    self.controlled(by: _RerunOnChangeController(specification: specification))
  }
}

/// The controller behind ``StatefulOperationRequest/rerunOnChange(of:)``.
public struct _RerunOnChangeController<
  State: OperationState & Sendable,
  Specification: OperationRunSpecification & Sendable
>: OperationController, Sendable {
  let specification: Specification

  package init(specification: Specification) {
    self.specification = specification
  }

  /// Watches the specification for one store.
  ///
  /// - Parameter controls: The store's controls.
  /// - Returns: A subscription that stops watching and cancels the modifier's rerun in flight.
  public func control(with controls: OperationControls<State>) -> OperationSubscription {
    let specification = self.specification
    // NB: A constant specification never changes, so there is nothing to watch. Every store of
    // a client without observers gets one of these, and watching costs several allocations.
    guard !Self.isConstant(specification) else { return .empty }
    let watch = Lock(
      Watch(isSatisfied: specification.isSatisfied(in: controls.context), rerun: nil)
    )
    let subscription = specification.subscribe(in: controls.context) {
      let isSatisfied = specification.isSatisfied(in: controls.context)
      let becameSatisfied = watch.withLock { watch in
        defer { watch.isSatisfied = isSatisfied }
        return isSatisfied && !watch.isSatisfied
      }
      var rerun: OperationTask<State.OperationValue, State.Failure>?
      if becameSatisfied && controls.subscriberCount > 0 && controls.isStale {
        rerun = controls.yieldRerunTask()
      }
      let previous = watch.withLock { watch in
        guard let rerun else {
          defer { watch.rerun = nil }
          return watch.rerun
        }
        watch.rerun = rerun
        return nil
      }
      previous?.cancel()
      rerun?.start()
    }
    return OperationSubscription {
      subscription.cancel()
      watch.withLock { watch in
        defer { watch.rerun = nil }
        return watch.rerun
      }?
      .cancel()
    }
  }

  private static func isConstant(_ specification: any OperationRunSpecification) -> Bool {
    if specification is AlwaysRunSpecification {
      return true
    }
    if let erased = specification as? AnySendableRunSpecification {
      return Self.isConstant(erased.base)
    }
    return false
  }

  private struct Watch {
    var isSatisfied: Bool
    var rerun: OperationTask<State.OperationValue, State.Failure>?
  }
}
