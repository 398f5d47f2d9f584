import OperationCore

/// A mutation that returns its arguments, or throws ``TestError`` for the arguments in
/// ``failingArguments``, and counts its attempts.
struct EchoMutation: MutationRequest, Hashable {
  var failingArguments: Set<String> = []
  let attempts = CallCounter()

  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.failingArguments == rhs.failingArguments
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(self.failingArguments)
  }

  func mutate(
    isolation: isolated (any Actor)?,
    with arguments: String,
    in context: OperationContext,
    with continuation: OperationContinuation<String, any Error>
  ) async throws -> String {
    self.attempts.increment()
    if self.failingArguments.contains(arguments) {
      throw TestError(message: "Failed for \(arguments).")
    }
    return arguments
  }
}
