/// How a caller of a deduplicated operation settled, as ``OperationContext/deduplicationJoinObserver``
/// reports it.
package enum DeduplicationJoin: Hashable, Sendable {
  /// The caller started a run of its own, which later callers can join.
  case started
  /// The caller joined a run in flight.
  case joined
  /// The caller was cancelled before it joined, and was answered with `CancellationError`.
  case cancelledBeforeJoining
}

extension OperationContext {
  /// Called by ``OperationRequest/deduplicated()`` right after a run has joined a shared run or
  /// started a new one (or was answered because it was cancelled first), so that a test can hold
  /// the shared run until every run has joined.
  package var deduplicationJoinObserver: (@Sendable (DeduplicationJoin) -> Void)? {
    get { self[DeduplicationJoinObserverKey.self] }
    set { self[DeduplicationJoinObserverKey.self] = newValue }
  }

  /// Whether the lock of a deduplicated operation's record of runs in this context is held now,
  /// by any thread, so that a test can check that the duplicate predicate runs with no lock held.
  package var isDeduplicationLocked: Bool {
    self.deduplicationStorages.contains { $0.storage.isLocked }
  }

  private enum DeduplicationJoinObserverKey: Key {
    static let defaultValue: (@Sendable (DeduplicationJoin) -> Void)? = nil
  }
}
