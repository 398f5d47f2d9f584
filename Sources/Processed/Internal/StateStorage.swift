import Observation

#if canImport(SwiftUI)
  import SwiftUI
#endif

/// The observable storage of a ``Loadable`` or a ``Process``: its state and the task that runs
/// it.
///
/// NB: The class is not isolated, so that a nonisolated class can declare a `@Loadable` or
/// `@Process` property (a main-actor initializer could not run there), and it is not `Sendable`,
/// so it cannot leave the isolation that created it. Its state is only read and written on the
/// main actor. The observation is written by hand: the setter of `@Observable` would be isolated
/// too.
final class StateStorage<Value>: Observable {
  private let registrar = ObservationRegistrar()
  private var storedState: Value

  let slot = OwnedTaskSlot()

  init(state: Value) {
    self.storedState = state
  }

  @MainActor
  var state: Value {
    get {
      self.registrar.access(self, keyPath: \.state)
      return self.storedState
    }
    set {
      self.registrar.withMutation(of: self, keyPath: \.state) {
        self.storedState = newValue
      }
    }
  }
}

/// Where a state property wrapper finds its storage: its own, or, once SwiftUI installed the
/// wrapper in a view, the one SwiftUI keeps in the view's state.
struct WrapperStorage<Value> {
  private let ownStorage: StateStorage<Value>

  #if canImport(SwiftUI)
    // NB: Installed in a view, the wrapper reads the storage from SwiftUI state, which keeps the
    // first storage across re-created views; `update()` says when SwiftUI installed it. Outside
    // a view, reading `State` would only warn and return its initial value, `ownStorage`.
    @SwiftUI.State private var viewStorage: StateStorage<Value>
    private var isInstalledInView = false
  #endif

  init(state: Value) {
    let storage = StateStorage(state: state)
    self.ownStorage = storage
    #if canImport(SwiftUI)
      self._viewStorage = SwiftUI.State(initialValue: storage)
    #endif
  }

  /// The storage in use.
  @MainActor
  var current: StateStorage<Value> {
    #if canImport(SwiftUI)
      self.isInstalledInView ? self.viewStorage : self.ownStorage
    #else
      self.ownStorage
    #endif
  }
}

#if canImport(SwiftUI)
  extension WrapperStorage: DynamicProperty {
    /// Switches to the storage that SwiftUI keeps for the view.
    mutating func update() {
      self.isInstalledInView = true
    }
  }
#endif
