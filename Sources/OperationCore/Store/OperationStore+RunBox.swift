// MARK: - RunBox

/// Holds a store's operation and runs it.
///
/// The operation lives in a subclass typed by it, inline, rather than in an existential box:
/// that saves every store an allocation.
// NB: `@unchecked Sendable` is safe because this class's only state is an actor, which is
// `Sendable`; its one subclass, `IsolatedRunBox`, holds the operation and says why sharing it
// is safe.
@usableFromInline
class RunBox<State: OperationState & Sendable>: @unchecked Sendable {
  /// The actor on which the operation runs.
  @usableFromInline let actor = OperationStoreActor()

  /// The type of the operation.
  var operationType: any Any.Type {
    // NB: Unreachable: stores only make `IsolatedRunBox`es, which override this property.
    fatalError("IsolatedRunBox overrides operationType")
  }

  /// Runs the operation on ``actor``, which the caller passes, so that the hop to the actor is
  /// the call itself.
  @usableFromInline
  func run(
    on actor: isolated OperationStoreActor,
    in context: OperationContext,
    with continuation: OperationContinuation<State.OperationValue, State.Failure>
  ) async throws(State.Failure) -> State.OperationValue {
    // NB: Unreachable: stores only make `IsolatedRunBox`es, which override this method.
    fatalError("IsolatedRunBox overrides run(on:in:with:)")
  }
}

/// Runs the operation on an actor of the store's own, so that runs of an operation that is not
/// `Sendable` never overlap except at suspension points.
///
/// Swift cannot tell at run time whether a type is `Sendable`, and a store is made in generic
/// code that does not know it either, so every store isolates its operation, as swift-operation
/// 0.5 does. The hop costs little: a run's task finds the actor idle and takes it on its own
/// thread.
// NB: `@unchecked Sendable` is safe because the operation, the box's only mutable-by-reference
// state, is touched only by `run(on:in:with:)`, which is isolated to `actor` (the store passes
// the box's own actor, and no other): the actor
// serialises every run of the operation, as it would if the operation were one of its own
// properties.
final class IsolatedRunBox<Operation: StatefulOperationRequest>: RunBox<Operation.State>,
  @unchecked Sendable
where Operation.State: Sendable {
  // NB: Read only in `run(on:in:with:)`, on `actor`, for the reason above. The operation arrived
  // as a `sending` value, so nothing outside the box refers to it.
  private nonisolated(unsafe) let operation: Operation

  init(_ operation: sending Operation) {
    self.operation = operation
  }

  override var operationType: any Any.Type {
    Operation.self
  }

  override func run(
    on actor: isolated OperationStoreActor,
    in context: OperationContext,
    with continuation: OperationContinuation<
      Operation.State.OperationValue, Operation.State.Failure
    >
  ) async throws(Operation.State.Failure) -> Operation.State.OperationValue {
    try await self.operation.run(isolation: actor, in: context, with: continuation)
  }
}

/// The actor on which a store runs its operation; the operation receives it as `isolation`.
@usableFromInline
actor OperationStoreActor {}
