/// What a run of a ``MutationRequest`` produces: the value its
/// ``MutationRequest/mutate(isolation:with:in:with:)`` returned or yielded.
///
/// A mutation's `run(isolation:in:with:)` wraps every value in this type, so that stores can tell
/// mutation runs apart from other runs. Store methods such as
/// ``OperationStore/mutate(with:using:handler:)`` and ``MutationEventHandler`` unwrap it for you;
/// you meet it only when you call `run()` on a mutation's store yourself:
///
/// ```swift
/// let value = try await store.run()
/// print(value.returnValue)
/// ```
public struct MutationOperationValue<ReturnValue: Sendable>: Sendable {
  /// The value the mutation returned or yielded.
  public let returnValue: ReturnValue

  @inlinable
  package init(returnValue: ReturnValue) {
    self.returnValue = returnValue
  }
}

extension MutationOperationValue: Equatable where ReturnValue: Equatable {}
extension MutationOperationValue: Hashable where ReturnValue: Hashable {}
