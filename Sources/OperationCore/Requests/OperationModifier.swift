/// Adds behaviour to an operation, such as retries or deduplication.
///
/// A modifier wraps the run of an operation. Attach it with ``OperationRequest/modifier(_:)``, and
/// give it a method that returns the concrete ``ModifiedOperation`` type so that conformances
/// such as ``QueryRequest`` survive:
///
/// ```swift
/// extension OperationRequest {
///   func delay(for duration: OperationDuration) -> ModifiedOperation<Self, DelayModifier<Self>> {
///     self.modifier(DelayModifier(duration: duration))
///   }
/// }
///
/// struct DelayModifier<Operation: OperationRequest>: OperationModifier, Sendable {
///   let duration: OperationDuration
///
///   func run(
///     isolation: isolated (any Actor)?,
///     in context: OperationContext,
///     using operation: Operation,
///     with continuation: OperationContinuation<Operation.Value, Operation.Failure>
///   ) async throws(Operation.Failure) -> Operation.Value {
///     try? await context.operationDelayer.delay(for: self.duration)
///     return try await operation.run(isolation: isolation, in: context, with: continuation)
///   }
/// }
/// ```
public protocol OperationModifier<Value, Failure> {
  /// The type of operation this modifier wraps.
  associatedtype Operation: OperationRequest

  /// The type of value the modified operation produces.
  associatedtype Value

  /// The type of error the modified operation throws.
  associatedtype Failure: Error

  /// Prepares the context once, when a store or runner is created.
  ///
  /// The default calls `operation.setup(context:)`; an implementation must call it too.
  ///
  /// - Parameters:
  ///   - context: The context to prepare.
  ///   - operation: The wrapped operation.
  func setup(context: inout OperationContext, using operation: Operation)

  /// Runs the wrapped operation with this modifier's behaviour.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of this run.
  ///   - operation: The wrapped operation.
  ///   - continuation: Receives intermediate results.
  /// - Returns: The value of the run.
  /// - Throws: The error of the run.
  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Value, Failure>
  ) async throws(Failure) -> Value
}

extension OperationModifier {
  /// Prepares the context with the wrapped operation only.
  ///
  /// - Parameters:
  ///   - context: The context to prepare.
  ///   - operation: The wrapped operation.
  public func setup(context: inout OperationContext, using operation: Operation) {
    operation.setup(context: &context)
  }
}

// MARK: - _ContextUpdatingOperationModifier

/// A modifier that only writes to the context in `setup` and runs the operation unchanged.
///
/// Its setup runs before the wrapped operation's setup, so when two such modifiers write the same
/// entry the innermost (first-applied) one wins. That is how an operation's own modifiers
/// override the defaults that an ``OperationClient`` appends outside them.
public protocol _ContextUpdatingOperationModifier: OperationModifier, Sendable
where Value == Operation.Value, Failure == Operation.Failure {
  /// Writes this modifier's entries to the context.
  ///
  /// - Parameter context: The context to prepare.
  func setup(context: inout OperationContext)
}

extension _ContextUpdatingOperationModifier {
  /// Writes this modifier's entries, then prepares the context with the wrapped operation.
  ///
  /// - Parameters:
  ///   - context: The context to prepare.
  ///   - operation: The wrapped operation.
  public func setup(context: inout OperationContext, using operation: Operation) {
    self.setup(context: &context)
    operation.setup(context: &context)
  }

  /// Runs the wrapped operation unchanged.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of this run.
  ///   - operation: The wrapped operation.
  ///   - continuation: Receives intermediate results.
  /// - Returns: The value of the run.
  /// - Throws: The error of the run.
  // NB: Inlined into its protocol witness. A store runs its chain of modifiers unspecialized,
  // through witnesses, and each function on the way is one more frame from the task's allocator.
  @inline(__always)
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws(Operation.Failure) -> Operation.Value {
    try await operation.run(isolation: isolation, in: context, with: continuation)
  }
}

// MARK: - ModifiedOperation

extension OperationRequest {
  /// Wraps this operation in a modifier.
  ///
  /// - Parameter modifier: The modifier.
  /// - Returns: The modified operation.
  public func modifier<Modifier: OperationModifier>(
    _ modifier: Modifier
  ) -> ModifiedOperation<Self, Modifier> {
    ModifiedOperation(operation: self, modifier: modifier)
  }
}

/// An operation wrapped in a modifier.
///
/// When the modifier keeps the value and error types, the modified operation is a
/// ``StatefulOperationRequest`` with the state and path of its base, and a ``QueryRequest`` when
/// the base is one.
public struct ModifiedOperation<Operation: OperationRequest, Modifier: OperationModifier>:
  OperationRequest
where Modifier.Operation == Operation {
  /// The type of value the modifier produces.
  public typealias Value = Modifier.Value
  /// The type of error the modifier throws.
  public typealias Failure = Modifier.Failure

  /// The wrapped operation.
  public let operation: Operation

  /// The modifier.
  public let modifier: Modifier

  package init(operation: Operation, modifier: Modifier) {
    self.operation = operation
    self.modifier = modifier
  }

  /// The name of the wrapped operation's type.
  public var _debugTypeName: String {
    self.operation._debugTypeName
  }

  /// Prepares the context through the modifier, which prepares it with the wrapped operation.
  ///
  /// - Parameter context: The context to prepare.
  public func setup(context: inout OperationContext) {
    self.modifier.setup(context: &context, using: self.operation)
  }

  /// Runs the wrapped operation through the modifier.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of this run.
  ///   - continuation: Receives intermediate results.
  /// - Returns: The value of the run.
  /// - Throws: The error of the run.
  // NB: Inlined into its protocol witness. A store runs its chain of modifiers unspecialized,
  // through witnesses, and each function on the way is one more frame from the task's allocator.
  @inline(__always)
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Modifier.Value, Modifier.Failure>
  ) async throws(Modifier.Failure) -> Modifier.Value {
    try await self.modifier.run(
      isolation: isolation,
      in: context,
      using: self.operation,
      with: continuation
    )
  }
}

extension ModifiedOperation: StatefulOperationRequest
where
  Operation: StatefulOperationRequest,
  Operation.Value == Modifier.Value,
  Operation.Failure == Modifier.Failure
{
  /// The state of the wrapped operation.
  public typealias State = Operation.State

  /// The path of the wrapped operation, so a modifier does not change the store it finds.
  public var path: OperationPath {
    self.operation.path
  }
}

extension ModifiedOperation: Sendable where Operation: Sendable, Modifier: Sendable {}

// MARK: - The modifiers an operation applies

/// What a chain of modifiers applies, for a store creator that adds modifiers around an operation
/// and leaves out those that would only pass its runs through.
///
/// It refines `SendableMetatype`, so that no conformance to it is isolated to an actor: casting
/// an operation that a creator is about to send to it leaves the operation free to be sent.
package protocol ModifierChain: SendableMetatype {
  /// Whether a `retry` modifier is anywhere in the chain.
  ///
  /// The innermost `retry` claims a run's retries, so a `retry` around this operation would pass
  /// every run through.
  var appliesRetry: Bool { get }

  /// Whether the outermost modifier is `deduplicated()` (not `deduplicated(by:)`).
  var isDeduplicatedOutermost: Bool { get }
}

extension ModifiedOperation: ModifierChain {
  /// Whether the modifier, or a modifier of the wrapped operation, is a `retry` modifier.
  package var appliesRetry: Bool {
    self.modifier is any RetryingModifier
      || (self.operation as? any ModifierChain)?.appliesRetry == true
  }

  /// Whether the modifier is `deduplicated()`.
  package var isDeduplicatedOutermost: Bool {
    (self.modifier as? any DeduplicatingModifier)?.sharesEveryDuplicate == true
  }
}
