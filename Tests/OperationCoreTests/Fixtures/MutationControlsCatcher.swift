import OperationCore
import OperationSynchronization

/// A controller of ``EchoMutation``-like stores that keeps the controls it receives.
final class MutationControlsCatcher: OperationController, Sendable {
  typealias State = MutationState<String, String, any Error>

  let controls = Lock<OperationControls<State>?>(nil)

  func control(with controls: OperationControls<State>) -> OperationSubscription {
    self.controls.withLock { $0 = controls }
    return OperationSubscription {}
  }
}
