/// Decides where and when a ``SharedOperation`` applies the state changes of its store.
///
/// A shared operation hands every state change of its store to its scheduler as a unit of work.
/// The work copies the store's state, as it is when the work runs, into the wrapper's observable
/// storage, so a scheduler may run work late, on another thread, or in another order: the last
/// unit of work to run always leaves the newest state behind.
///
/// The library ships three schedulers:
///
/// - ``SynchronousStateScheduler`` (`.synchronous`, the default) runs the work at once, on the
///   thread where the store changed.
/// - ``MainActorStateScheduler`` (`.mainActor`) runs the work on the main actor, for models and
///   views that only read state there.
/// - `AnimationStateScheduler` (`.animation(_:)`), where SwiftUI exists, runs the work on the main
///   actor inside `withAnimation`.
///
/// Write your own to deliver state elsewhere, for example inside a UI framework's transaction:
///
/// ```swift
/// struct TransactionStateScheduler: SharedOperationStateScheduler, Sendable {
///   func schedule(work: @escaping @Sendable () -> Void) {
///     Task { @MainActor in
///       withMyTransaction { work() }
///     }
///   }
/// }
/// ```
public protocol SharedOperationStateScheduler {
  /// Runs a unit of work that applies a state change.
  ///
  /// Run `work` exactly once, now or later, on any thread.
  ///
  /// - Parameter work: The work that applies the change.
  func schedule(work: @escaping @Sendable () -> Void)
}

// MARK: - SynchronousStateScheduler

/// A ``SharedOperationStateScheduler`` that applies every state change at once, on the thread where
/// the store changed.
///
/// This is the default: a shared operation that uses it shows every change of its store by the
/// time the change's cause (a fetch, `setResult`, `withLock`) returns.
public struct SynchronousStateScheduler: SharedOperationStateScheduler, Sendable {
  /// Creates the scheduler.
  public init() {}

  /// Runs `work` at once.
  ///
  /// - Parameter work: The work that applies the change.
  public func schedule(work: @escaping @Sendable () -> Void) {
    work()
  }
}

extension SharedOperationStateScheduler where Self == SynchronousStateScheduler {
  /// A scheduler that applies every state change at once, on the thread where the store changed.
  public static var synchronous: Self {
    SynchronousStateScheduler()
  }
}
