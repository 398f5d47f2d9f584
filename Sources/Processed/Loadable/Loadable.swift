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
  private var storage: WrapperStorage<LoadableState<Value>>

  /// Creates the wrapper.
  ///
  /// - Parameter wrappedValue: The initial state; ``LoadableState/absent`` by default.
  public init(wrappedValue: LoadableState<Value> = .absent) {
    self.storage = WrapperStorage(state: wrappedValue)
  }

  /// The state; setting it cancels the running load first.
  @MainActor
  public var wrappedValue: LoadableState<Value> {
    get { self.storage.current.state }
    nonmutating set { self.projectedValue.wrappedValue = newValue }
  }

  /// The binding that loads the state, as `$numbers`.
  @MainActor
  public var projectedValue: LoadableBinding<Value> {
    LoadableBinding(controller: StateController(self.storage.current))
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
      self.storage.update()
    }
  }
#endif
