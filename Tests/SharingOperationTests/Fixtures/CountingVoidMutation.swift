import OperationCore

/// A mutation without arguments that returns how many times it has run.
struct CountingVoidMutation: MutationRequest, Hashable {
  let attempts = CallCounter()

  static func == (lhs: Self, rhs: Self) -> Bool {
    true
  }

  func hash(into hasher: inout Hasher) {}

  func mutate(
    isolation: isolated (any Actor)?,
    with arguments: Void,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.attempts.increment()
  }
}
