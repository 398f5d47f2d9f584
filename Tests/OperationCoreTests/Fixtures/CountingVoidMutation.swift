import OperationCore

/// A mutation without arguments that returns how many times it ran, and never fails.
struct CountingVoidMutation: MutationRequest {
  let counter = CallCounter()

  var path: OperationPath {
    ["counting-void-mutation", ObjectIdentifier(self.counter)]
  }

  func mutate(
    isolation: isolated (any Actor)?,
    with arguments: Void,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, Never>
  ) async -> Int {
    self.counter.increment()
  }
}
