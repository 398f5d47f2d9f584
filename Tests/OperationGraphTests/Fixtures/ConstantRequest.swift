import OperationCore

/// A request that returns a value at once.
struct ConstantRequest<Value: Sendable>: OperationRequest, Sendable {
  let value: Value

  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, Never>
  ) async -> Value {
    self.value
  }
}
