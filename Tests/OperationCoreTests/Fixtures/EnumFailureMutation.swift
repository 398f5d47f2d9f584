import OperationCore

/// A mutation with its own typed failure, which cannot hold `MutationArgumentsMissingError`.
struct EnumFailureMutation: MutationRequest, Hashable {
  enum Failure: Error {
    case rejected
  }

  func mutate(
    isolation: isolated (any Actor)?,
    with arguments: String,
    in context: OperationContext,
    with continuation: OperationContinuation<String, Failure>
  ) async throws(Failure) -> String {
    arguments
  }
}
