import Observation
@_spi(Warnings) import OperationCore
import OperationSynchronization

/// The storage of a `SharedOperation` and of all its copies: the reference it currently uses, and
/// what the wrapper showed when it was re-pointed to that reference.
///
/// Assigning to a wrapper's projected value re-points the box to another reference, which every
/// copy of the wrapper then uses, and Observation reports the change to whoever read the old one.
/// When the new reference's placeholder is `.previousValue`, the box remembers the value the
/// wrapper showed just before, for the wrapper to show while the new store has no result.
///
/// Fields and their guards: `registrar` is immutable; `current` has its own lock. Re-pointing
/// reads the old reference's mirror while holding `current`'s lock (box lock, then mirror lock);
/// nothing takes them in the other order. The replaced reference is released after the lock is,
/// since its `deinit` ends a store subscription.
final class SharedOperationBox<State: OperationState & Sendable>: Observable, Sendable {
  /// The reference in use and what the wrapper showed when it was re-pointed to it.
  struct Current: Sendable {
    let reference: SharedOperationReference<State>
    /// `nil` unless the wrapper was re-pointed to `reference`, whose placeholder keeps the
    /// previous value.
    let previousValue: State.StateValue?
  }

  private let registrar = ObservationRegistrar()
  private let storage: Lock<Current>

  init(_ reference: SharedOperationReference<State>) {
    self.storage = Lock(Current(reference: reference, previousValue: nil))
  }

  /// The reference in use and the previous value; reading it registers an Observation
  /// dependency.
  var current: Current {
    self.registrar.access(self, keyPath: \.current)
    return self.storage.withLock { $0 }
  }

  /// The reference in use; reading it registers an Observation dependency.
  var reference: SharedOperationReference<State> {
    self.current.reference
  }

  /// Re-points the box, and every copy of the wrapper, to `reference`.
  func repoint(to reference: SharedOperationReference<State>) {
    let replaced = self.registrar.withMutation(of: self, keyPath: \.current) {
      self.storage.withLock { current in
        let old = current
        let previousValue: State.StateValue? =
          if reference.placeholder.keepsPreviousValue {
            old.reference.placeholder.shownValue(
              for: old.reference.untrackedState,
              previousValue: old.previousValue
            )
            .value
          } else {
            nil
          }
        current = Current(reference: reference, previousValue: previousValue)
        return old
      }
    }
    withExtendedLifetime(replaced) {}
  }
}
