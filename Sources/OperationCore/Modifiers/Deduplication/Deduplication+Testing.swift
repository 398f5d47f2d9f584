extension OperationContext {
  /// Called by ``OperationRequest/deduplicated()`` right after a run has joined a shared run or
  /// started a new one, so that a test can hold the shared run until every run has joined.
  package var deduplicationJoinObserver: (@Sendable () -> Void)? {
    get { self[DeduplicationJoinObserverKey.self] }
    set { self[DeduplicationJoinObserverKey.self] = newValue }
  }

  private enum DeduplicationJoinObserverKey: Key {
    static let defaultValue: (@Sendable () -> Void)? = nil
  }
}
