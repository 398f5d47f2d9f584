import Synchronization

// MARK: - Modifiers

extension MutationRequest where Self: SendableMetatype {
  /// Changes the matching stores before the mutation runs, rolls the change back exactly if it
  /// fails, and keeps it if it succeeds (TanStack Query's `onMutate` and `onError`).
  ///
  /// ```swift
  /// let createPost = CreatePost()
  ///   .optimisticUpdate(of: FeedQuery.State.self, matching: { _ in ["feed"] }) { feed, draft in
  ///     feed?.insert(Post(draft: draft), at: 0)
  ///   }
  ///   .invalidates(matching: { _ in ["feed"] })
  /// ```
  ///
  /// Each matching store of state type `Target` gets its own
  /// ``OperationStore/applyOptimisticUpdate(_:)``, with its guarantees: a rollback removes this
  /// change only, even while other mutations change the store, and while the mutation runs no
  /// fetch that started before it ended can overwrite the store. A cancelled mutation counts as
  /// a failed one. Without a client in the run's context (a detached mutation store), the
  /// modifier changes nothing.
  ///
  /// - Parameters:
  ///   - stateType: The exact state type of the stores to change, such as `FeedQuery.State.self`.
  ///   - path: The path prefix of the stores to change, from the mutation's arguments.
  ///   - change: Changes a store's value; it runs with no lock held, and again whenever the
  ///     value under it changes, so it must depend on its arguments only.
  /// - Returns: The modified mutation.
  public func optimisticUpdate<Target: OperationState & Sendable>(
    of stateType: Target.Type,
    matching path: @escaping @Sendable (Arguments) -> OperationPath,
    _ change: @escaping @Sendable (inout Target.StateValue, Arguments) -> Void
  ) -> ModifiedOperation<Self, _MutationStoreEffectModifier<Self>> {
    self.modifier(
      _MutationStoreEffectModifier { client, arguments in
        let updates = client.stores(matching: path(arguments), of: Target.self).map { store in
          store.applyOptimisticUpdate { value in change(&value, arguments) }
        }
        return { result in
          for update in updates {
            if case .success = result { update.commit() } else { update.rollBack() }
          }
        }
      }
    )
  }

  /// Writes the mutation's result into the matching stores when it succeeds (TanStack Query's
  /// `setQueryData` in `onSuccess`).
  ///
  /// ```swift
  /// let rename = RenamePost()
  ///   .updates(of: PostQuery.State.self, matching: { ["post", $0.id] }) { post, arguments, renamed in
  ///     post = renamed
  ///   }
  /// ```
  ///
  /// The matching stores are protected while the mutation runs: no fetch that started before
  /// the mutation ended overwrites the value written. Without a client in the run's context, the
  /// modifier changes nothing.
  ///
  /// - Parameters:
  ///   - stateType: The exact state type of the stores to change.
  ///   - path: The path prefix of the stores to change, from the mutation's arguments.
  ///   - update: Changes a store's value with the mutation's arguments and result; it runs with
  ///     no lock held.
  /// - Returns: The modified mutation.
  public func updates<Target: OperationState & Sendable>(
    of stateType: Target.Type,
    matching path: @escaping @Sendable (Arguments) -> OperationPath,
    _ update: @escaping @Sendable (inout Target.StateValue, Arguments, MutateValue) -> Void
  ) -> ModifiedOperation<Self, _MutationStoreEffectModifier<Self>> {
    self.modifier(
      _MutationStoreEffectModifier { client, arguments in
        let stores = client.stores(matching: path(arguments), of: Target.self)
        let protections = stores.map { $0.beginProtection() }
        return { result in
          if case .success(let value) = result {
            for store in stores {
              store.updateValue { update(&$0, arguments, value) }
            }
          }
          for protection in protections {
            protection.commit()
          }
        }
      }
    )
  }

  /// Invalidates the matching stores once the mutation ends, whether it succeeded or failed
  /// (TanStack Query's `invalidateQueries` in `onSettled`), and returns once their reruns end.
  ///
  /// ```swift
  /// let createPost = CreatePost().invalidates(matching: { _ in ["feed"] })
  /// try await client.store(for: createPost).mutate(with: draft)
  /// // Every observed feed has fetched again, and shows the new post.
  /// ```
  ///
  /// The matching stores are protected while the mutation runs, so that a fetch that started
  /// before the mutation ended never lands after it; the reruns start after the protection
  /// ends. Put this modifier outside (after) ``optimisticUpdate(of:matching:_:)`` so that the
  /// reruns start once the optimistic change is resolved. Errors of the reruns do not change
  /// the mutation's result. Without a client in the run's context, the modifier does nothing.
  ///
  /// - Parameters:
  ///   - path: The path prefix of the stores to invalidate, from the mutation's arguments.
  ///   - rerun: Which stores run again; ``OperationClient/RerunPolicy/observed`` by default.
  /// - Returns: The modified mutation.
  public func invalidates(
    matching path: @escaping @Sendable (Arguments) -> OperationPath,
    rerun: OperationClient.RerunPolicy = .observed
  ) -> ModifiedOperation<Self, _MutationStoreEffectModifier<Self>> {
    self.modifier(
      _MutationStoreEffectModifier { client, arguments in
        let path = path(arguments)
        // NB: Mutation stores are not protected: a mutation's own store must record its result.
        let protections = client.stores(matching: path).filter { !$0.isMutation }
          .map { $0.beginProtection() }
        return { _ in
          for protection in protections {
            protection.commit()
          }
          await client.invalidate(matching: path, rerun: rerun)
        }
      }
    )
  }
}

// MARK: - Modifier

/// The modifier behind ``MutationRequest/optimisticUpdate(of:matching:_:)``,
/// ``MutationRequest/updates(of:matching:_:)`` and ``MutationRequest/invalidates(matching:rerun:)``:
/// work on the client's stores before the mutation runs and after it ends.
public struct _MutationStoreEffectModifier<Operation: MutationRequest>: OperationModifier, Sendable
{
  /// The work that follows the mutation, with its result.
  typealias Completion =
    @Sendable (Result<Operation.MutateValue, Operation.MutateFailure>) async ->
    Void

  /// The work that precedes the mutation; returns the work that follows it.
  let begin: @Sendable (OperationClient, Operation.Arguments) -> Completion

  /// Tells this modifier's effects apart from other modifiers' in one run.
  private let identity = nextStoreEffectIdentity.add(1, ordering: .relaxed).newValue

  init(begin: @escaping @Sendable (OperationClient, Operation.Arguments) -> Completion) {
    self.begin = begin
  }

  /// Runs the work before the mutation, the mutation, and the work after it.
  ///
  /// In a store, the work before happens once per run, before its first attempt, and the work
  /// after once the run is over, with its final result, however many attempts a
  /// `retry(limit:)` outside this modifier makes. Outside a store, or without a client or
  /// arguments in the context, it happens around each call.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws(Operation.Failure) -> Operation.Value {
    guard let client = context.operationClient,
      let arguments = context.mutationArguments(as: Operation.Arguments.self)
    else {
      return try await operation.run(isolation: isolation, in: context, with: continuation)
    }
    if let store = context.runningOperationStore, let order = context.storeRunOrder {
      _ = store.startRunEffects(sequence: order.sequence, identity: self.identity) {
        let complete = self.begin(client, arguments)
        return { result in
          // NB: The store's result is this mutation's: a store's operation keeps the value and
          // failure types of the mutations it wraps.
          switch result {
          case .success(let value):
            await complete(.success((value as! Operation.Value).returnValue))
          case .failure(let error):
            await complete(.failure(error as! Operation.MutateFailure))
          }
        }
      }
      return try await operation.run(isolation: isolation, in: context, with: continuation)
    }
    let complete = self.begin(client, arguments)
    do throws(Operation.Failure) {
      let value = try await operation.run(isolation: isolation, in: context, with: continuation)
      await complete(.success(value.returnValue))
      return value
    } catch {
      await complete(.failure(error))
      throw error
    }
  }
}

private let nextStoreEffectIdentity = Atomic<Int>(0)
