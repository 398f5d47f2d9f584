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
  /// The predicate is called with no lock of the library held, so it may read the store.
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
      (self.identity, DeduplicationStorage(failure: Operation.Failure.self))
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
        .storage
    else {
      return try await operation.run(isolation: isolation, in: context, with: continuation)
    }
    var context = context
    // NB: Read once, before joining: the paging request of a run in flight does not change until
    // it finishes. Most runs have none, and writing `nil` over nothing would copy the context for
    // no change.
    let pagingRequest = context.runningPagingRequest
    if pagingRequest != nil || context.deduplicationPagingRequest != nil {
      context.deduplicationPagingRequest = pagingRequest
    }
    let outcome = await storage.wait(
      isolation: isolation,
      context: context,
      isDuplicate: self.isDuplicate
    ) { [context] finish in
      // NB: The shared run is a task of its own, so that a caller that stops waiting does not
      // cancel it. It is created with the starting caller's task configuration (name, priority,
      // executor), and it is isolated to `isolation`, as the caller is (a task closure that uses
      // the isolated parameter inherits it): it runs the operation there, so an operation that is
      // not `Sendable` never leaves its actor, and the compiler checks that nothing else crosses.
      Task(configuration: context.operationTaskConfiguration) {
        do throws(Operation.Failure) {
          let value = try await operation.run(
            isolation: isolation,
            in: context,
            with: continuation
          )
          finish(.success(value))
        } catch {
          finish(.failure(error))
        }
      }
    }
    // NB: The storage of this modifier's identity only ever holds results of `operation`, and a
    // cancelled caller's `CancellationError` only when `Operation.Failure` can hold it, so these
    // casts cannot fail.
    switch outcome {
    case .success(let value): return value as! Operation.Value
    case .failure(let error): throw error as! Operation.Failure
    }
  }
}

private let nextDeduplicationIdentity = Atomic<Int>(0)

extension OperationContext {
  /// The record of runs in flight of each deduplication modifier of the store, by modifier.
  ///
  /// A store has one or two of these, so a small array costs less than a dictionary.
  var deduplicationStorages: [(identity: Int, storage: DeduplicationStorage)] {
    get { self[DeduplicationStoragesKey.self] }
    set { self[DeduplicationStoragesKey.self] = newValue }
  }

  private enum DeduplicationStoragesKey: Key {
    static let defaultValue = [(identity: Int, storage: DeduplicationStorage)]()
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
