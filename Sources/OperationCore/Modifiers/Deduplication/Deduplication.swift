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
    self.modifier(_DeduplicationModifier(isDuplicate: nil))
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
  /// The predicate of ``OperationRequest/deduplicated(by:)``; `nil` for
  /// ``OperationRequest/deduplicated()``, whose runs are duplicates when their paging requests
  /// are equal.
  let isDuplicate: (@Sendable (OperationContext, OperationContext) -> Bool)?
  private let identity = nextDeduplicationIdentity.add(1, ordering: .relaxed).newValue

  init(isDuplicate: (@Sendable (OperationContext, OperationContext) -> Bool)?) {
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
  // NB: Inlined into its protocol witness. A store runs its chain of modifiers unspecialized,
  // through witnesses, and each function on the way is one more frame from the task's allocator.
  @inline(__always)
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws(Operation.Failure) -> Operation.Value {
    // NB: What the run joins is worked out outside this function, which is asynchronous: every
    // value an asynchronous function touches takes room in its frame, which each run allocates
    // from its task's allocator. With the work inline, the frame took 928 bytes.
    guard case .shares(let storage, let context) = self.plan(for: context) else {
      return try await operation.run(isolation: isolation, in: context, with: continuation)
    }
    let outcome = await storage.wait(
      isolation: isolation,
      context: context,
      isDuplicate: self.isDuplicate ?? { $0.hasSamePagingRequest(as: $1) }
    ) { [context] finish in
      // NB: The shared run is a task of its own, so that a caller that stops waiting does not
      // cancel it. It is created with the starting caller's task configuration (name, priority,
      // executor), and it is isolated to `isolation`, as the caller is (a task closure that uses
      // the isolated parameter inherits it): it runs the operation there, so an operation that is
      // not `Sendable` never leaves its actor, and the compiler checks that nothing else crosses.
      // It starts at once, on the caller's thread and actor, which the caller leaves only to wait
      // for it: an operation that does not suspend finishes before the caller waits, with no
      // thread hop, and one that does suspend has started by then.
      Task.immediate(configuration: context.operationTaskConfiguration) {
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

  /// Whether a run with `context` shares a run in flight, with the storage and the context it
  /// joins with, or runs the operation on its own.
  @inline(never)
  private func plan(for context: OperationContext) -> DeduplicationPlan {
    let storages = context.deduplicationStorages
    guard let index = storages.lastIndex(where: { $0.identity == self.identity }) else {
      return .runsAlone
    }
    let storage = storages[index].storage
    // NB: Inside the shared run of an enclosing `deduplicated()` of the same store, a
    // `deduplicated()` has nothing to share: the enclosing one lets one run of each paging
    // request through at a time, and it calls those runs duplicates just as this one does. So
    // the run goes on in the enclosing shared run's task, which is a task this one would make
    // again (same name, same priority), instead of in a task of its own. One race goes another
    // way: a retry of a run that started before an invalidation, while a run that started after
    // it is in flight, calls the operation instead of joining that run. The store refuses the
    // older run's result either way.
    // NB: Only a `deduplicated()` behind another of its store looks: a store's only or outermost
    // one, which most runs pass through, reads nothing more from the context.
    if self.isDuplicate == nil, index > 0,
      let enclosing = context.enclosingSharedRun,
      enclosing.isShared(by: storages[..<index], configuration: context.operationTaskConfiguration)
    {
      context.deduplicationJoinObserver?(.started)
      return .runsAlone
    }
    var context = context
    // NB: Only a shared run with a `deduplicated()` inside it says so in its context: the entry
    // costs every run an allocation.
    if self.isDuplicate == nil, index + 1 < storages.count {
      context.enclosingSharedRun = EnclosingSharedRun(
        storage: storage.id,
        configuration: context.operationTaskConfiguration
      )
    }
    // NB: Read once, before joining: the paging request of a run in flight does not change until
    // it finishes. Most runs have none, and writing `nil` over nothing would copy the context for
    // no change.
    let pagingRequest = context.runningPagingRequest
    if pagingRequest != nil || context.deduplicationPagingRequest != nil {
      context.deduplicationPagingRequest = pagingRequest
    }
    return .shares(storage, context)
  }
}

/// What a `deduplicated()` does with a run.
private enum DeduplicationPlan {
  /// The run runs the operation on its own: the store has no record of this modifier's runs,
  /// or the run is inside an enclosing shared run that this one would only repeat.
  case runsAlone
  /// The run shares a run in flight recorded by the storage, or starts one, with the context.
  case shares(DeduplicationStorage, OperationContext)
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

  /// The shared run of a `deduplicated()` that this run is part of, when a `deduplicated()` of
  /// the same store sits inside it.
  fileprivate var enclosingSharedRun: EnclosingSharedRun? {
    get { self[EnclosingSharedRunKey.self] }
    set { self[EnclosingSharedRunKey.self] = newValue }
  }

  private enum EnclosingSharedRunKey: Key {
    static let defaultValue: EnclosingSharedRun? = nil
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

/// The shared run of a `deduplicated()`, as the runs of the operation inside it see it.
private struct EnclosingSharedRun: Sendable {
  /// The ``DeduplicationStorage/id`` of the enclosing modifier's storage.
  let storage: Int
  /// The configuration that the shared run's task was made with.
  let configuration: OperationTaskConfiguration

  /// Whether the shared run belongs to one of `storages`, the `deduplicated()`s that enclose a
  /// `deduplicated()` in its store, and runs in a task like the one that a run with
  /// `configuration` would make.
  func isShared(
    by storages: ArraySlice<(identity: Int, storage: DeduplicationStorage)>,
    configuration: OperationTaskConfiguration
  ) -> Bool {
    // NB: Executor preferences cannot be compared, so a run with one keeps a task of its own.
    self.configuration.executorPreference == nil && configuration.executorPreference == nil
      && self.configuration.name == configuration.name
      && self.configuration.priority == configuration.priority
      && storages.contains { $0.storage.id == self.storage }
  }
}

/// A deduplication modifier, whatever the operation it wraps, for ``ModifierChain``.
package protocol DeduplicatingModifier {
  /// Whether it is `deduplicated()`, which calls runs duplicates when their paging requests are
  /// equal, rather than `deduplicated(by:)`.
  var sharesEveryDuplicate: Bool { get }
}

extension _DeduplicationModifier: DeduplicatingModifier {
  /// Whether this is `deduplicated()`.
  package var sharesEveryDuplicate: Bool {
    self.isDuplicate == nil
  }
}
