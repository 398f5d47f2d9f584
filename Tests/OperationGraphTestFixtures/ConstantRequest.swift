package import OperationCore

/// A request that returns a value at once.
package struct ConstantRequest<Value: Sendable>: OperationRequest, Sendable {
  package let value: Value

  package init(value: Value) {
    self.value = value
  }

  package func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, Never>
  ) async -> Value {
    self.value
  }
}
