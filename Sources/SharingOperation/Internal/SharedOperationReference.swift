import Observation
@_spi(Warnings) import OperationCore
import OperationSynchronization

/// The observable model behind one `SharedOperation` initializer call: it subscribes to a store
/// and mirrors the store's state into storage that Observation tracks.
///
/// The subscription starts in `init`, which lets the store run its operation automatically, and
/// ends in `deinit`. The store's handler holds the reference weakly, so the store never keeps it
/// alive: releasing the last wrapper that uses the reference releases the reference and ends the
/// subscription.
///
/// Every state change the store reports is handed to the scheduler, and the scheduled work copies
/// the store's state *at that moment* into the mirror. Deliveries that a scheduler runs late or
/// out of order therefore never leave an older state behind: the last delivery always mirrors the
/// newest state.
///
/// Fields and their guards:
/// - `store`, `isBacked`, `placeholder`, `scheduler`, `registrar`: immutable after `init`.
/// - `mirror`: its own lock. Writers hold the store's lock around it (store lock, then mirror
///   lock), readers take only the mirror lock, so the two locks are always taken in one order.
/// - `subscription`: its own lock; set once in `init`, cancelled in `deinit`.
final class SharedOperationReference<State: OperationState & Sendable>: Observable, Sendable {
  let store: OperationStore<State>
  let isBacked: Bool
  /// What a wrapper on this reference shows while the store has no result.
  let placeholder: SharedOperationPlaceholder<State>
  /// Where the store's changes are applied; selections made from the wrapper use it too.
  let scheduler: any SharedOperationStateScheduler & Sendable
  private let registrar = ObservationRegistrar()
  private let mirror: Lock<State>
  private let subscription = Lock<OperationSubscription?>(nil)

  init(
    store: OperationStore<State>,
    isBacked: Bool,
    scheduler: some SharedOperationStateScheduler & Sendable,
    placeholder: SharedOperationPlaceholder<State> = .none
  ) {
    self.store = store
    self.isBacked = isBacked
    self.placeholder = placeholder
    self.scheduler = scheduler
    self.mirror = Lock(store.state)
    let subscription = store.subscribe(
      with: OperationEventHandler { [weak self] _, _ in
        guard let self else { return }
        scheduler.schedule { [weak self] in self?.refresh() }
      }
    )
    self.subscription.withLock { $0 = subscription }
  }

  deinit {
    self.subscription.withLock { $0 }?.cancel()
  }

  /// The mirrored state; reading it registers an Observation dependency.
  var state: State {
    self.registrar.access(self, keyPath: \.state)
    return self.mirror.withLock { $0 }
  }

  /// The mirrored state, without registering an Observation dependency.
  var untrackedState: State {
    self.mirror.withLock { $0 }
  }

  /// The value a wrapper on this reference shows, and whether it is a placeholder; reading it
  /// registers an Observation dependency on the state.
  ///
  /// - Parameter previousValue: What the wrapper showed when it was re-pointed here, if it was.
  func shownValue(
    previousValue: State.StateValue?
  ) -> (value: State.StateValue, isPlaceholder: Bool) {
    self.placeholder.shownValue(for: self.state, previousValue: previousValue)
  }

  /// Copies the store's current state into the mirror, and tells Observation about it.
  func refresh() {
    self.registrar.withMutation(of: self, keyPath: \.state) {
      self.store.withExclusiveAccess { store in
        let state = store.state
        self.mirror.withLock { $0 = state }
      }
    }
  }

  /// Registers an Observation dependency on the mirrored state without reading it, for members
  /// that read the store directly (such as `isStale`) and change with its state.
  func accessState() {
    self.registrar.access(self, keyPath: \.state)
  }
}
