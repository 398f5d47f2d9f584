import OperationCore

/// A mutation whose typed failure is ``MutationArgumentsMissingError`` itself, and which doubles
/// its optional argument (treating `nil` as 0).
struct TypedFailureMutation: MutationRequest, Hashable {
  func mutate(
    isolation: isolated (any Actor)?,
    with arguments: Int?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, MutationArgumentsMissingError>
  ) async throws(MutationArgumentsMissingError) -> Int {
    (arguments ?? 0) * 2
  }
}
