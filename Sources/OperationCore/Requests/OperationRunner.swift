/// Runs an operation without a store: the stateless runtime.
///
/// The runner calls the operation's ``OperationRequest/setup(context:)`` once, when it is created,
/// and then runs the operation with its ``context`` as often as you ask:
///
/// ```swift
/// let runner = OperationRunner(operation: SendEmail(to: address).retry(limit: 3))
/// try await runner.run()
/// ```
public struct OperationRunner<Operation: OperationRequest> {
  /// The context that runs use unless one is passed to ``run(isolation:in:with:)``.
  public var context: OperationContext

  private let operation: Operation

  /// Creates a runner and prepares its context.
  ///
  /// - Parameters:
  ///   - operation: The operation to run.
  ///   - initialContext: The context before the operation's setup.
  public init(operation: Operation, initialContext: OperationContext = OperationContext()) {
    self.operation = operation
    var context = initialContext
    operation.setup(context: &context)
    self.context = context
  }

  /// Runs the operation.
  ///
  /// - Parameters:
  ///   - isolation: The actor to run on; the caller's by default.
  ///   - context: The context of this run; ``context`` by default.
  ///   - continuation: Receives intermediate results; ignores them by default.
  /// - Returns: The value of the operation.
  /// - Throws: The error of the operation.
  public func run(
    isolation: isolated (any Actor)? = #isolation,
    in context: OperationContext? = nil,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure> =
      OperationContinuation { _, _ in }
  ) async throws(Operation.Failure) -> Operation.Value {
    try await self.operation.run(
      isolation: isolation,
      in: context ?? self.context,
      with: continuation
    )
  }
}

extension OperationRunner: Sendable where Operation: Sendable {}
