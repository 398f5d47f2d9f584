/// A ``SharedOperationStateScheduler`` that applies state changes on the main actor.
///
/// Use it for a shared operation whose state is read on the main actor, such as one in a
/// `@MainActor` `@Observable` model, so that observers of the model are only ever told of changes
/// on the main actor:
///
/// ```swift
/// @MainActor
/// @Observable
/// final class PostModel {
///   @ObservationIgnored
///   @SharedOperation<Post.Query.State> var post: Post??
///
///   init(id: Int) {
///     self._post = SharedOperation(Post.query(for: id), scheduler: .mainActor)
///   }
/// }
/// ```
///
/// Every change is applied in a task on the main actor that the scheduler enqueues when the store
/// changes, even when the change was made on the main actor, so the wrapper shows a change a
/// little after the store has it. Each task applies the store's state as it is when the task runs,
/// so the last one leaves the newest state behind.
///
/// > Note: The scheduler always enqueues, because a synchronous, nonisolated `schedule(work:)`
/// > cannot tell whether it runs on the main actor on every platform: on Linux the main actor's
/// > jobs need not run on the process's main thread.
public struct MainActorStateScheduler: SharedOperationStateScheduler, Sendable {
  /// Creates the scheduler.
  public init() {}

  /// Enqueues `work` on the main actor.
  ///
  /// - Parameter work: The work that applies the change.
  public func schedule(work: @escaping @Sendable () -> Void) {
    Task { @MainActor in work() }
  }
}

extension SharedOperationStateScheduler where Self == MainActorStateScheduler {
  /// A scheduler that applies state changes on the main actor.
  public static var mainActor: Self {
    MainActorStateScheduler()
  }
}
