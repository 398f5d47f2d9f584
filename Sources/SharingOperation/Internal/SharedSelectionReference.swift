import Observation
import OperationCore
import OperationSynchronization

/// The observable model behind one `SharedSelection` initializer call: it subscribes to an
/// `OperationSelection` and mirrors the selected value into storage that Observation tracks.
///
/// The selection calls its subscribers only when the selected value changes, so Observation is
/// told only then. Each delivery is recorded as the newest value and handed to the scheduler; the
/// scheduled work applies the newest value *at that moment*, so work that a scheduler runs late or
/// out of order never leaves an older value behind, and work that finds the newest value already
/// shown tells Observation nothing.
///
/// The subscription starts in `init` and ends in `deinit`. The selection's subscriber holds the
/// reference weakly; the reference holds the selection, which holds the store subscription.
///
/// Fields and their guards:
/// - `registrar`, `selection`: immutable after `init`.
/// - `values`: its own lock. It is only held to copy or assign values: the comparison of values
///   (`==`, which may be the user's) happens after it is released.
/// - `subscription`: its own lock; set once in `init`, cancelled in `deinit`.
final class SharedSelectionReference<Value: Equatable & Sendable>: Observable, Sendable {
  private struct Values: Sendable {
    /// The value observers see.
    var shown: Value
    /// The newest value the selection delivered.
    var newest: Value
  }

  private let registrar = ObservationRegistrar()
  /// Keeps the selection, and so its store subscription, alive.
  private let selection: any Sendable
  private let values: Lock<Values>
  private let subscription = Lock<OperationSubscription?>(nil)

  init<State: OperationState & Sendable>(
    selection: OperationSelection<State, Value>,
    scheduler: some SharedOperationStateScheduler & Sendable
  ) {
    self.selection = selection
    let value = selection.value
    self.values = Lock(Values(shown: value, newest: value))
    let subscription = selection.subscribe { [weak self] value in
      guard let self else { return }
      self.values.withLock { $0.newest = value }
      scheduler.schedule { [weak self] in self?.applyNewest() }
    }
    self.subscription.withLock { $0 = subscription }
  }

  deinit {
    self.subscription.withLock { $0 }?.cancel()
  }

  /// The selected value, as last applied by the scheduler; reading it registers an Observation
  /// dependency.
  var value: Value {
    self.registrar.access(self, keyPath: \.value)
    return self.values.withLock { $0.shown }
  }

  /// Shows the newest delivered value, telling Observation only when it differs from the shown
  /// one.
  private func applyNewest() {
    let (shown, newest) = self.values.withLock { ($0.shown, $0.newest) }
    guard shown != newest else { return }
    self.registrar.withMutation(of: self, keyPath: \.value) {
      self.values.withLock { $0.shown = $0.newest }
    }
  }
}
