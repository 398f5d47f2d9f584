import Synchronization

extension OperationRequest where Value: Sendable {
  /// Makes concurrent runs share one run of the operation.
  ///
  /// While a run is in flight, every other run waits for its result instead of calling the
  /// operation again. Only the first run's continuation receives yielded values.
  ///
  /// Cancellation: a waiting caller that is cancelled stops waiting and throws
  /// `CancellationError` (when `Failure` can hold it); the shared run is cancelled only when no
  /// caller is left waiting for it.
  ///
  /// - Returns: The modified operation.
  public func deduplicated() -> ModifiedOperation<Self, _DeduplicationModifier<Self>> {
    self.deduplicated { _, _ in true }
  }

  /// Makes concurrent runs that a predicate calls duplicates share one run of the operation.
  ///
  /// - Parameter isDuplicate: Whether a run with the second context may share the in-flight run
  ///   with the first context.
  /// - Returns: The modified operation.
  public func deduplicated(
    by isDuplicate: @escaping @Sendable (OperationContext, OperationContext) -> Bool
  ) -> ModifiedOperation<Self, _DeduplicationModifier<Self>> {
    self.modifier(_DeduplicationModifier(isDuplicate: isDuplicate))
  }
}

/// The modifier behind ``OperationRequest/deduplicated()``.
public struct _DeduplicationModifier<Operation: OperationRequest>: OperationModifier, Sendable
where Operation.Value: Sendable {
  let isDuplicate: @Sendable (OperationContext, OperationContext) -> Bool
  private let identity = nextDeduplicationIdentity.add(1, ordering: .relaxed).newValue

  init(isDuplicate: @escaping @Sendable (OperationContext, OperationContext) -> Bool) {
    self.isDuplicate = isDuplicate
  }

  public func setup(context: inout OperationContext, using operation: Operation) {
    // NB: Each store (or runner) sets its operation up once, so the storage is per store.
    context.deduplicationStorages[self.identity] = DeduplicationStorage<
      Operation.Value, Operation.Failure
    >()
    operation.setup(context: &context)
  }

  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws(Operation.Failure) -> Operation.Value {
    guard
      let storage = context.deduplicationStorages[self.identity]
        as? DeduplicationStorage<Operation.Value, Operation.Failure>
    else {
      return try await operation.run(isolation: isolation, in: context, with: continuation)
    }
    let transfer = UnsafeTransfer(value: operation)
    let (group, waiter) = storage.join(context: context, isDuplicate: self.isDuplicate) {
      // NB: The shared run is the one run of this operation value, started once per group.
      let operation = transfer.value
      do throws(Operation.Failure) {
        return .success(try await operation.run(isolation: nil, in: context, with: continuation))
      } catch {
        return .failure(error)
      }
    }
    return try await group.wait(waiter).get()
  }
}

private let nextDeduplicationIdentity = Atomic<Int>(0)

extension OperationContext {
  fileprivate var deduplicationStorages: [Int: any Sendable] {
    get { self[DeduplicationStoragesKey.self] }
    set { self[DeduplicationStoragesKey.self] = newValue }
  }

  private enum DeduplicationStoragesKey: Key {
    static let defaultValue = [Int: any Sendable]()
  }
}
