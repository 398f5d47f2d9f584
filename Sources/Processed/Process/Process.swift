import Observation

#if canImport(SwiftUI)
  public import SwiftUI
#endif

/// A property wrapper that holds a ``ProcessState`` and runs its processes for you.
///
/// Use it in any class, such as an `@Observable` model (mark the property
/// `@ObservationIgnored`: the wrapper's storage is observable itself, so reads of the state are
/// still tracked), or, on Apple platforms, in a SwiftUI view:
///
/// ```swift
/// @MainActor @Observable
/// final class DocumentModel {
///   @ObservationIgnored @Process var saving  // A `Process<SingleProcess>`.
///
///   func save() {
///     $saving.run {
///       try await storage.save(document)
///     }
///   }
/// }
/// ```
///
/// `saving` is the state (``ProcessState/idle`` until something runs). `$saving` is a
/// ``ProcessBinding`` with the `run`, ``ProcessBinding/cancel()`` and ``ProcessBinding/reset()``
/// methods; it owns the task of the runs. Setting `saving` yourself cancels the running process
/// first. Name a process kind to track several processes with one state:
///
/// ```swift
/// enum Action { case save, delete }
///
/// @ObservationIgnored @Process<Action> var action
///
/// $action.run(.delete) { try await storage.delete(document) }
/// ```
///
/// In a SwiftUI view, the storage lives in the view's state, so it survives the view being
/// re-created. Elsewhere, copies of the wrapper share their storage.
///
/// > Note: Foundation also declares a `Process` type (for subprocesses). In a file that imports
/// > both modules, write `Processed.Process`.
@propertyWrapper
public struct Process<ProcessKind> {
  private let ownStorage: ProcessStorage<ProcessKind>

  #if canImport(SwiftUI)
    // NB: Installed in a view, the wrapper reads the storage from SwiftUI state, which keeps the
    // first storage across re-created views; `update()` says when SwiftUI installed it. Outside
    // a view, reading `State` would only warn and return its initial value, `ownStorage`.
    @SwiftUI.State private var viewStorage: ProcessStorage<ProcessKind>
    private var isInstalledInView = false
  #endif

  /// Creates the wrapper.
  ///
  /// - Parameter wrappedValue: The initial state; ``ProcessState/idle`` by default.
  public init(wrappedValue: ProcessState<ProcessKind> = .idle) {
    let storage = ProcessStorage(state: wrappedValue)
    self.ownStorage = storage
    #if canImport(SwiftUI)
      self._viewStorage = SwiftUI.State(initialValue: storage)
    #endif
  }

  /// Creates the wrapper of a single-purpose process, so that `@Process var saving` is a
  /// `Process<SingleProcess>`.
  ///
  /// - Parameter wrappedValue: The initial state; ``ProcessState/idle`` by default.
  public init(wrappedValue: ProcessState<ProcessKind> = .idle)
  where ProcessKind == SingleProcess {
    let storage = ProcessStorage(state: wrappedValue)
    self.ownStorage = storage
    #if canImport(SwiftUI)
      self._viewStorage = SwiftUI.State(initialValue: storage)
    #endif
  }

  @MainActor
  private var storage: ProcessStorage<ProcessKind> {
    #if canImport(SwiftUI)
      self.isInstalledInView ? self.viewStorage : self.ownStorage
    #else
      self.ownStorage
    #endif
  }

  /// The state; setting it cancels the running process first.
  @MainActor
  public var wrappedValue: ProcessState<ProcessKind> {
    get { self.storage.state }
    nonmutating set { self.projectedValue.wrappedValue = newValue }
  }

  /// The binding that runs the processes, as `$saving`.
  @MainActor
  public var projectedValue: ProcessBinding<ProcessKind> {
    let storage = self.storage
    return ProcessBinding(
      read: { storage.state },
      write: { storage.state = $0 },
      slot: storage.slot
    )
  }
}

extension Process {
  /// The type of the projected value.
  public typealias Binding = ProcessBinding<ProcessKind>
}

#if canImport(SwiftUI)
  extension Process: DynamicProperty {
    /// Switches to the storage that SwiftUI keeps for the view.
    public mutating func update() {
      self.isInstalledInView = true
    }
  }
#endif

/// The observable storage of a ``Process``: its state and the task that runs it.
///
/// NB: Not isolated and not `Sendable`, with hand-written observation, for the reasons given on
/// `LoadableStorage`.
final class ProcessStorage<ProcessKind>: Observable {
  private let registrar = ObservationRegistrar()
  private var storedState: ProcessState<ProcessKind>

  let slot = OwnedTaskSlot()

  init(state: ProcessState<ProcessKind>) {
    self.storedState = state
  }

  @MainActor
  var state: ProcessState<ProcessKind> {
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
