import Foundation
public import OperationCore
import OperationSynchronization

extension MutationRequest
where Self: Sendable, Arguments: Codable, MutateFailure == any Error {
  /// Makes every run of this mutation go through `outbox`: written to the database before it
  /// runs, delivered in order in its lane, kept while offline, and resumed after a restart.
  ///
  /// ```swift
  /// let createPost = CreatePost().durable(in: outbox, kind: "create-post")
  /// let post = try await client.store(for: createPost).mutate(with: draft)
  /// ```
  ///
  /// Calling this registers the mutation for `kind` with the outbox (see
  /// ``MutationOutbox/register(_:kind:)``), so create durable mutations at launch, before
  /// ``MutationOutbox/resume()``. A kind belongs to one mutation type: when `kind` is registered
  /// for another type, the registration is reported and the runs of this mutation throw
  /// ``MutationOutbox/KindConflictError`` without writing anything. A run returns once the outbox has delivered its entry, and
  /// throws ``MutationOutbox/DeliveryError`` when the entry failed for good. Cancelling the run
  /// stops the wait, not the delivery: the entry stays in the outbox.
  ///
  /// The mutation runs in the outbox's delivery, not on the store's actor, and reads its
  /// idempotency key from `OperationContext/idempotencyKey`. Values it yields are not
  /// forwarded to the store.
  ///
  /// - Parameters:
  ///   - outbox: The outbox.
  ///   - kind: The name the entries are stored under; keep it stable across releases.
  ///   - lane: The lane of a run's entry, from its arguments; the mutation's path when `nil`.
  /// - Returns: The modified mutation.
  public func durable(
    in outbox: MutationOutbox,
    kind: String,
    lane: (@Sendable (Arguments) -> String)? = nil
  ) -> ModifiedOperation<Self, _DurableMutationModifier<Self>> {
    outbox.register(self, kind: kind)
    return self.modifier(
      _DurableMutationModifier(outbox: outbox, kind: kind, lane: lane, keys: RunKeys())
    )
  }
}

/// The modifier behind `MutationRequest/durable(in:kind:lane:)`.
public struct _DurableMutationModifier<Operation: MutationRequest & Sendable>: OperationModifier,
  Sendable
where Operation.Arguments: Codable, Operation.MutateFailure == any Error {
  let outbox: MutationOutbox
  let kind: String
  let lane: (@Sendable (Operation.Arguments) -> String)?
  let keys: RunKeys

  /// Enqueues the run's arguments in the outbox and waits for the delivery.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws(Operation.Failure) -> Operation.Value {
    guard let arguments = context.mutationArguments(as: Operation.Arguments.self) else {
      // NB: Without arguments the mutation reports the problem itself.
      return try await operation.run(isolation: isolation, in: context, with: continuation)
    }
    if let conflict = self.outbox.kindConflict(kind: self.kind, type: Operation.self) {
      throw conflict
    }
    let data = try JSONEncoder().encode(arguments)
    let lane = self.lane?(arguments) ?? Self.defaultLane(of: operation)
    let value = try await self.outbox.enqueueAndWait(
      kind: self.kind,
      data: data,
      lane: lane,
      idempotencyKey: self.keys.key(in: context),
      context: context
    )
    // NB: The kind is registered for this mutation type (checked above), whose value has this
    // type; the check is kept so that nothing traps if that ever changes.
    guard let value = value as? Operation.MutateValue else {
      throw MutationOutbox.KindConflictError(
        kind: self.kind,
        registeredType: "a mutation whose value is \(_typeName(type(of: value), qualified: true))",
        mutationType: _typeName(Operation.self, qualified: true)
      )
    }
    return MutationOperationValue(returnValue: value)
  }
}

extension _DurableMutationModifier {
  /// The lane of a mutation without a lane function: the key of its path and type, or, for a
  /// path without a stable key, the path's description (a lane only orders deliveries).
  static func defaultLane(of operation: Operation) -> String {
    (try? PersistentQueryCache.key(for: operation)) ?? operation.path.description
  }
}

/// The idempotency key of each store run of a durable mutation, so that every attempt of one run
/// (a `retry(limit:)` outside the modifier, as the default store creator adds) waits for the
/// same entry instead of enqueueing the mutation again under a new key.
final class RunKeys: Sendable {
  private let keys = Lock([RunKey: String]())

  private struct RunKey: Hashable {
    let store: ObjectIdentifier
    let sequence: Int
  }

  /// The key of the run of `context`; a new one outside a store's run.
  func key(in context: OperationContext) -> String {
    guard let store = context.runningOperationStore, let order = context.storeRunOrder else {
      return UUID().uuidString
    }
    let runKey = RunKey(store: ObjectIdentifier(store.base as AnyObject), sequence: order.sequence)
    let key = self.keys.withLock { keys in
      if let key = keys[runKey] { return key }
      let key = UUID().uuidString
      keys[runKey] = key
      return key
    }
    // NB: The key is forgotten when the run ends, whatever its attempts did.
    _ = store.startRunEffects(sequence: order.sequence, identity: ObjectIdentifier(self).hashValue)
    {
      { [self] _ in self.keys.withLock { _ = $0.removeValue(forKey: runKey) } }
    }
    return key
  }
}
