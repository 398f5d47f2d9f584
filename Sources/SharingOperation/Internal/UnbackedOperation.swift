@_spi(Warnings) import OperationCore

/// The operation of an unbacked `SharedOperation`'s store: running it reports an issue and fails
/// with `UnbackedSharedOperationError`.
struct UnbackedOperation<State: OperationState & Sendable>: StatefulOperationRequest, Sendable {
  typealias Value = State.OperationValue
  typealias Failure = State.Failure

  /// A path of its own per state type; unbacked stores are detached, so no client caches it.
  var path: OperationPath {
    OperationPath("__sharing_operation_unbacked_operation_\(typeName(State.self))__")
  }

  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<State.OperationValue, State.Failure>
  ) async throws(State.Failure) -> State.OperationValue {
    reportWarning(.unbackedSharedOperationRun(stateType: State.self))
    let error = UnbackedSharedOperationError(stateTypeName: typeName(State.self))
    guard let failure = error as? State.Failure else {
      // NB: Typed throws leaves no way out here: a run whose failure type is, say, an operation's
      // own error enum or `Never` must return a value or throw that type, and an unbacked
      // operation has neither. The issue was reported above.
      fatalError(
        """
        \(error) The state's failure type \(typeName(State.Failure.self)) cannot hold \
        UnbackedSharedOperationError, so the run cannot fail with it.
        """
      )
    }
    throw failure
  }
}
