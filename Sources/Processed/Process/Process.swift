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
  private var storage: WrapperStorage<ProcessState<ProcessKind>>

  /// Creates the wrapper.
  ///
  /// - Parameter wrappedValue: The initial state; ``ProcessState/idle`` by default.
  public init(wrappedValue: ProcessState<ProcessKind> = .idle) {
    self.storage = WrapperStorage(state: wrappedValue)
  }

  /// Creates the wrapper of a single-purpose process, so that `@Process var saving` is a
  /// `Process<SingleProcess>`.
  ///
  /// - Parameter wrappedValue: The initial state; ``ProcessState/idle`` by default.
  public init(wrappedValue: ProcessState<ProcessKind> = .idle)
  where ProcessKind == SingleProcess {
    self.storage = WrapperStorage(state: wrappedValue)
  }

  /// The state; setting it cancels the running process first.
  @MainActor
  public var wrappedValue: ProcessState<ProcessKind> {
    get { self.storage.current.state }
    nonmutating set { self.projectedValue.wrappedValue = newValue }
  }

  /// The binding that runs the processes, as `$saving`.
  @MainActor
  public var projectedValue: ProcessBinding<ProcessKind> {
    ProcessBinding(controller: StateController(self.storage.current))
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
      self.storage.update()
    }
  }
#endif
