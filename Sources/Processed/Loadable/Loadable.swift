import Observation

#if canImport(SwiftUI)
  public import SwiftUI
#endif

/// A property wrapper that holds a ``LoadableState`` and loads it for you.
///
/// Use it in any class, such as an `@Observable` model (mark the property
/// `@ObservationIgnored`: the wrapper's storage is observable itself, so reads of the state are
/// still tracked), or, on Apple platforms, in a SwiftUI view:
///
/// ```swift
/// @MainActor @Observable
/// final class NumbersModel {
///   @ObservationIgnored @Loadable<[Int]> var numbers
///
///   func loadNumbers() {
///     $numbers.load {
///       try await api.numbers()
///     }
///   }
/// }
/// ```
///
/// `numbers` is the state (``LoadableState/absent`` until something loads). `$numbers` is a
/// ``LoadableBinding`` with the `load`, ``LoadableBinding/cancel()`` and
/// ``LoadableBinding/reset()`` methods; it owns the task of the loads. Setting `numbers` yourself
/// cancels the running load first.
///
/// In a SwiftUI view, the storage lives in the view's state, so it survives the view being
/// re-created. Elsewhere, copies of the wrapper share their storage.
@propertyWrapper
public struct Loadable<Value> {
  private let ownStorage: LoadableStorage<Value>

  #if canImport(SwiftUI)
    // NB: Installed in a view, the wrapper reads the storage from SwiftUI state, which keeps the
    // first storage across re-created views; `update()` says when SwiftUI installed it. Outside
    // a view, reading `State` would only warn and return its initial value, `ownStorage`.
    @SwiftUI.State private var viewStorage: LoadableStorage<Value>
    private var isInstalledInView = false
  #endif

  /// Creates the wrapper.
  ///
  /// - Parameter wrappedValue: The initial state; ``LoadableState/absent`` by default.
  public init(wrappedValue: LoadableState<Value> = .absent) {
    let storage = LoadableStorage(state: wrappedValue)
    self.ownStorage = storage
    #if canImport(SwiftUI)
      self._viewStorage = SwiftUI.State(initialValue: storage)
    #endif
  }

  @MainActor
  private var storage: LoadableStorage<Value> {
    #if canImport(SwiftUI)
      self.isInstalledInView ? self.viewStorage : self.ownStorage
    #else
      self.ownStorage
    #endif
  }

  /// The state; setting it cancels the running load first.
  @MainActor
  public var wrappedValue: LoadableState<Value> {
    get { self.storage.state }
    nonmutating set { self.projectedValue.wrappedValue = newValue }
  }

  /// The binding that loads the state, as `$numbers`.
  @MainActor
  public var projectedValue: LoadableBinding<Value> {
    let storage = self.storage
    return LoadableBinding(
      read: { storage.state },
      write: { storage.state = $0 },
      slot: storage.slot
    )
  }
}

extension Loadable {
  /// The type of the projected value.
  public typealias Binding = LoadableBinding<Value>
}

#if canImport(SwiftUI)
  extension Loadable: DynamicProperty {
    /// Switches to the storage that SwiftUI keeps for the view.
    public mutating func update() {
      self.isInstalledInView = true
    }
  }
#endif

/// The observable storage of a ``Loadable``: its state and the task that loads it.
///
/// NB: The class is not isolated, so that a nonisolated class can declare a `@Loadable` property
/// (a main-actor initializer could not run there), and it is not `Sendable`, so it cannot leave
/// the isolation that created it. Its state is only read and written on the main actor. The
/// observation is written by hand: the setter of `@Observable` would be isolated too.
final class LoadableStorage<Value>: Observable {
  private let registrar = ObservationRegistrar()
  private var storedState: LoadableState<Value>

  let slot = OwnedTaskSlot()

  init(state: LoadableState<Value>) {
    self.storedState = state
  }

  @MainActor
  var state: LoadableState<Value> {
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
