import Synchronization

extension OperationRequest where Value: Sendable {
  /// Makes concurrent runs share one run of the operation.
  ///
  /// While a run is in flight, every other run waits for its result instead of calling the
  /// operation again. Only the first run's continuation receives yielded values.
  ///
  /// In the store of a ``PaginatedRequest``, two runs share only when they fetch the same thing,
  /// that is when their ``PagingRequest``s are equal: two fetches of the next page share, while a
  /// fetch of the next page and a fetch of the previous page run side by side.
  ///
  /// Cancellation: a waiting caller that is cancelled stops waiting and throws
  /// `CancellationError` (when `Failure` can hold it); the shared run is cancelled only when no
  /// caller is left waiting for it.
  ///
  /// - Returns: The modified operation.
  public func deduplicated() -> ModifiedOperation<Self, _DeduplicationModifier<Self>> {
    self.deduplicated { $0.hasSamePagingRequest(as: $1) }
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

  /// Gives the store or runner its own record of runs in flight, then sets up the operation.
  public func setup(context: inout OperationContext, using operation: Operation) {
    // NB: Each store (or runner) sets its operation up once, so the storage is per store.
    context.deduplicationStorages.append(
      (self.identity, DeduplicationStorage<Operation.Value, Operation.Failure>())
    )
    operation.setup(context: &context)
  }

  /// Joins a run in flight whose context the predicate calls a duplicate, or starts a new one.
  ///
  /// Without the record that ``setup(context:using:)`` adds, the operation runs on its own.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws(Operation.Failure) -> Operation.Value {
    guard
      let storage = context.deduplicationStorages.last(where: { $0.identity == self.identity })?
        .storage as? DeduplicationStorage<Operation.Value, Operation.Failure>
    else {
      return try await operation.run(isolation: isolation, in: context, with: continuation)
    }
    var context = context
    // NB: Read once, before joining: the predicate runs under the storage's lock, and the paging
    // request of a run in flight does not change until it finishes. Most runs have none, and
    // writing `nil` over nothing would copy the context for no change.
    let pagingRequest = context.runningPagingRequest
    if pagingRequest != nil || context.deduplicationPagingRequest != nil {
      context.deduplicationPagingRequest = pagingRequest
    }
    let sharedRun = SharedRun(operation: operation, context: context, continuation: continuation)
    return try await storage.wait(
      context: context,
      isDuplicate: self.isDuplicate,
      work: sharedRun.work
    )
    .get()
  }
}

/// The one run of an operation that a deduplication group shares among its waiters.
private struct SharedRun<Operation: OperationRequest>: @unchecked Sendable {
  // NB: The operation value is moved here by the first waiter of a group and is run once, by
  // the group's task; no other reference to it is used after the move.
  let operation: Operation
  let context: OperationContext
  let continuation: OperationContinuation<Operation.Value, Operation.Failure>

  /// The run as a `Sendable` closure that captures no metatype of `Operation`.
  var work: @Sendable () async -> Result<Operation.Value, Operation.Failure> {
    let run: () async -> Result<Operation.Value, Operation.Failure> = { await self.run() }
    // NB: `run` is a fresh closure that only the returned closure references, and stores call
    // an operation's conformance from their own tasks everywhere (isolated conformances of
    // `OperationRequest` are not supported), so moving it to the group's task is safe.
    let transfer = UnsafeTransfer(value: run)
    return { await transfer.value() }
  }

  private func run() async -> Result<Operation.Value, Operation.Failure> {
    do throws(Operation.Failure) {
      let value = try await self.operation.run(
        isolation: nil,
        in: self.context,
        with: self.continuation
      )
      return .success(value)
    } catch {
      return .failure(error)
    }
  }
}

private let nextDeduplicationIdentity = Atomic<Int>(0)

extension OperationContext {
  /// The record of runs in flight of each deduplication modifier of the store, by modifier.
  ///
  /// A store has one or two of these, so a small array costs less than a dictionary.
  fileprivate var deduplicationStorages: [(identity: Int, storage: any Sendable)] {
    get { self[DeduplicationStoragesKey.self] }
    set { self[DeduplicationStoragesKey.self] = newValue }
  }

  private enum DeduplicationStoragesKey: Key {
    static let defaultValue = [(identity: Int, storage: any Sendable)]()
  }

  /// The paging request of a run in a paginated store, read when the run joins; `nil` for other
  /// operations, whose runs are all duplicates of each other.
  fileprivate var deduplicationPagingRequest: (any Hashable & Sendable)? {
    get { self[DeduplicationPagingRequestKey.self] }
    set { self[DeduplicationPagingRequestKey.self] = newValue }
  }

  /// Whether both runs have no paging request, or equal ones.
  fileprivate func hasSamePagingRequest(as other: OperationContext) -> Bool {
    switch (self.deduplicationPagingRequest, other.deduplicationPagingRequest) {
    case (nil, nil): true
    case (let lhs?, let rhs?): AnyHashable(lhs) == AnyHashable(rhs)
    default: false
    }
  }

  private enum DeduplicationPagingRequestKey: Key {
    static let defaultValue: (any Hashable & Sendable)? = nil
  }
}
