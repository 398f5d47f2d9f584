/// An operation that creates, updates or deletes data, such as a `POST` to an HTTP API.
///
/// A mutation runs with ``Arguments``: one mutation value serves every set of arguments, so a
/// client keeps one store per mutation, not one per set of arguments.
///
/// ```swift
/// struct LikePost: MutationRequest, Hashable {
///   func mutate(
///     isolation: isolated (any Actor)?,
///     with postID: Int,
///     in context: OperationContext,
///     with continuation: OperationContinuation<Int, any Error>
///   ) async throws -> Int {
///     try await api.like(postID: postID)  // Returns the new like count.
///   }
/// }
///
/// let store = client.store(for: LikePost())
/// let likes = try await store.mutate(with: 42)
/// try await store.retryLatest()  // Likes post 42 again.
/// ```
///
/// A store keeps a ``MutationState`` for the mutation, whose ``MutationState/history`` records
/// every attempt with its arguments. The state's value, error and loading flag follow the latest
/// attempt. Stores never run a mutation by themselves, not even when created by an
/// ``OperationClient``.
///
/// You implement ``mutate(isolation:with:in:with:)``; the protocol implements
/// `run(isolation:in:with:)`, which reads the run's arguments from its context and wraps the
/// values in ``MutationOperationValue``.
public protocol MutationRequest<Arguments, MutateValue, MutateFailure>: StatefulOperationRequest
where
  Value == MutationOperationValue<MutateValue>,
  State == MutationState<Arguments, MutateValue, MutateFailure>,
  Failure == MutateFailure
{
  /// The type of the input of a mutation run.
  associatedtype Arguments: Sendable

  /// The type of value a mutation run returns.
  associatedtype MutateValue: Sendable

  /// The type of error a mutation run throws.
  associatedtype MutateFailure: Error

  /// Performs the mutation with a set of arguments.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - arguments: The input of this run.
  ///   - context: The context of this run.
  ///   - continuation: Receives intermediate results, such as an optimistic value.
  /// - Returns: The result of the mutation.
  /// - Throws: The error of the mutation.
  func mutate(
    isolation: isolated (any Actor)?,
    with arguments: Arguments,
    in context: OperationContext,
    with continuation: OperationContinuation<MutateValue, MutateFailure>
  ) async throws(MutateFailure) -> MutateValue
}

extension MutationRequest {
  /// Runs the mutation with the arguments of the run's context.
  ///
  /// Stores put the arguments in the context: those passed to
  /// ``OperationStore/mutate(with:using:handler:)``, or the latest attempt's for
  /// ``OperationStore/retryLatest(using:handler:)`` and `run()`. Yielded and returned values
  /// are wrapped in ``MutationOperationValue``. A context passed along with a yield gets the
  /// run's arguments too, so event handlers can report them.
  ///
  /// > Note: Upstream swift-operation traps when a run has no arguments. Here the run reports
  /// > the issue and throws ``MutationArgumentsMissingError`` when `MutateFailure` can hold it;
  /// > see that type for the one case that still stops the program.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of this run, with its arguments.
  ///   - continuation: Receives intermediate values.
  /// - Returns: The value of the mutation.
  /// - Throws: The error of the mutation, or ``MutationArgumentsMissingError``.
  @inlinable
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<MutationOperationValue<MutateValue>, MutateFailure>
  ) async throws(MutateFailure) -> MutationOperationValue<MutateValue> {
    // NB: Inlinable so that each mutation's conformance specializes the run for its own types.
    guard let arguments = context.mutationArguments(as: Arguments.self) else {
      throw MutationArgumentsMissingError.failure(as: MutateFailure.self, reportingIn: context)
    }
    let value = try await self.mutate(
      isolation: isolation,
      with: arguments,
      in: context,
      with: OperationContinuation { result, yieldContext in
        var yieldContext = yieldContext
        yieldContext?.setMutationArguments(arguments)
        continuation.yield(
          with: result.map { MutationOperationValue(returnValue: $0) },
          using: yieldContext
        )
      }
    )
    return MutationOperationValue(returnValue: value)
  }
}

extension MutationRequest where Arguments == Void {
  /// Performs a mutation that takes no arguments.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of this run.
  ///   - continuation: Receives intermediate results.
  /// - Returns: The result of the mutation.
  /// - Throws: The error of the mutation.
  public func mutate(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<MutateValue, MutateFailure>
  ) async throws(MutateFailure) -> MutateValue {
    try await self.mutate(isolation: isolation, with: (), in: context, with: continuation)
  }
}

extension ModifiedOperation: MutationRequest
where
  Operation: MutationRequest,
  Operation.Value == Modifier.Value,
  Operation.Failure == Modifier.Failure
{
  /// Mutates with the wrapped mutation directly, without the modifier.
  ///
  /// Stores call `run(isolation:in:with:)`, which goes through the modifier.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - arguments: The input of this run.
  ///   - context: The context of this run.
  ///   - continuation: Receives intermediate results.
  /// - Returns: The result of the mutation.
  /// - Throws: The error of the mutation.
  public func mutate(
    isolation: isolated (any Actor)?,
    with arguments: Operation.Arguments,
    in context: OperationContext,
    with continuation: OperationContinuation<Operation.MutateValue, Operation.MutateFailure>
  ) async throws(Operation.MutateFailure) -> Operation.MutateValue {
    try await self.operation.mutate(
      isolation: isolation,
      with: arguments,
      in: context,
      with: continuation
    )
  }
}

// MARK: - Missing arguments

extension MutationArgumentsMissingError {
  /// The error as a mutation's failure type, for a run that has no arguments.
  ///
  /// - Parameter failureType: The mutation's `MutateFailure`.
  /// - Returns: The error, when `failureType` can hold it; otherwise the program stops, since the
  ///   run has neither a value to return nor an error it may throw.
  static func failure<Failure: Error>(as failureType: Failure.Type) -> Failure {
    guard let failure = MutationArgumentsMissingError() as? Failure else {
      // NB: Typed throws leaves no way out here: a run of a mutation whose failure type is, say,
      // its own error enum or `Never` must return a value or throw that type, and without
      // arguments it has neither. The issue was reported before this point.
      fatalError(
        """
        \(MutationArgumentsMissingError()) The mutation's failure type \
        \(typeName(Failure.self)) cannot hold MutationArgumentsMissingError, so the run cannot \
        fail with it.
        """
      )
    }
    return failure
  }

  /// Reports a run without arguments, unless its state did already, and returns the error as the
  /// mutation's failure type (see ``failure(as:)``).
  ///
  /// - Parameters:
  ///   - failureType: The mutation's `MutateFailure`.
  ///   - context: The context of the run.
  /// - Returns: The error.
  @usableFromInline
  static func failure<Failure: Error>(
    as failureType: Failure.Type,
    reportingIn context: OperationContext
  ) -> Failure {
    if !context.isMissingMutationArgumentsReported {
      reportWarning(.mutationWithNoArgumentsOrHistory)
    }
    return Self.failure(as: failureType)
  }
}

// MARK: - Context entries

extension OperationContext {
  /// The arguments of a mutation run, if they have the given type.
  ///
  /// - Parameter type: The mutation's arguments type.
  /// - Returns: The arguments, or `nil` when the context has none of that type.
  @inlinable
  package func mutationArguments<Arguments: Sendable>(as type: Arguments.Type) -> Arguments? {
    // NB: The arguments sit in a box typed by `Arguments`, so that optional arguments that are
    // `nil` still count as arguments (a cast of a boxed `nil` to `Arguments` would not tell).
    (self[MutationArgumentsKey.self] as? MutationArguments<Arguments>)?.value
  }

  /// Sets the arguments of a mutation run.
  ///
  /// - Parameter arguments: The arguments.
  @inlinable
  package mutating func setMutationArguments<Arguments: Sendable>(_ arguments: Arguments) {
    self[MutationArgumentsKey.self] = MutationArguments(value: arguments)
  }

  /// Removes the arguments of a mutation run.
  package mutating func removeMutationArguments() {
    self[MutationArgumentsKey.self] = nil
  }

  /// Whether the state already reported that this run has no arguments.
  var isMissingMutationArgumentsReported: Bool {
    get { self[MissingMutationArgumentsReportedKey.self] }
    set { self[MissingMutationArgumentsReportedKey.self] = newValue }
  }

  @usableFromInline
  enum MutationArgumentsKey: Key {
    @usableFromInline static let defaultValue: (any Sendable)? = nil
  }

  private enum MissingMutationArgumentsReportedKey: Key {
    static let defaultValue = false
  }
}

/// The arguments of a mutation run, typed so that reading them back cannot confuse types.
@usableFromInline
struct MutationArguments<Value: Sendable>: Sendable {
  @usableFromInline let value: Value

  @inlinable init(value: Value) {
    self.value = value
  }
}
