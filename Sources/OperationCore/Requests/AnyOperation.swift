/// A type-erased operation.
public struct AnyOperation<Value, Failure: Error>: OperationRequest {
  /// The erased operation.
  public let base: any OperationRequest<Value, Failure>

  /// Erases an operation.
  ///
  /// - Parameter operation: The operation to erase.
  public init(_ operation: some OperationRequest<Value, Failure>) {
    self.base = operation
  }

  /// The name of the erased operation's type.
  public var _debugTypeName: String {
    self.base._debugTypeName
  }

  /// Prepares the context with the erased operation.
  ///
  /// - Parameter context: The context to prepare.
  public func setup(context: inout OperationContext) {
    self.base.setup(context: &context)
  }

  /// Runs the erased operation.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of this run.
  ///   - continuation: Receives intermediate results.
  /// - Returns: The value of the run.
  /// - Throws: The error of the run.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, Failure>
  ) async throws(Failure) -> Value {
    try await self.base.run(isolation: isolation, in: context, with: continuation)
  }
}
