import Observation
@_spi(Warnings) import OperationCore

/// The storage of a `SharedOperation` and of all its copies: the reference it currently uses.
///
/// Assigning to a wrapper's projected value re-points the box to another reference, which every
/// copy of the wrapper then uses, and Observation reports the change to whoever read the old one.
///
/// Fields and their guards: `registrar` is immutable; `current` has its own lock. The replaced
/// reference is released after the lock is, since its `deinit` ends a store subscription.
final class SharedOperationBox<State: OperationState & Sendable>: Observable, Sendable {
  private let registrar = ObservationRegistrar()
  private let current: Lock<SharedOperationReference<State>>

  init(_ reference: SharedOperationReference<State>) {
    self.current = Lock(reference)
  }

  /// The reference in use; reading it registers an Observation dependency.
  var reference: SharedOperationReference<State> {
    get {
      self.registrar.access(self, keyPath: \.reference)
      return self.current.withLock { $0 }
    }
    set {
      let replaced = self.registrar.withMutation(of: self, keyPath: \.reference) {
        self.current.withLock { current in
          defer { current = newValue }
          return current
        }
      }
      withExtendedLifetime(replaced) {}
    }
  }
}
