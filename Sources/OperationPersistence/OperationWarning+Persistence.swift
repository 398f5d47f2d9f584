@_spi(Warnings) public import OperationCore

@_spi(Warnings)
extension OperationWarning {
  /// The query cache met a problem: an entry it could not decode, a value it could not encode,
  /// a write that failed, or a path with no stable key.
  ///
  /// - Parameter problem: The problem.
  public static func queryCacheProblem(_ problem: PersistentQueryCache.Problem) -> Self {
    switch problem {
    case .undecodableEntry, .unstableKey:
      Self("\(problem.description)")
    case .unencodableValue, .storageFailed:
      Self(
        """
        \(problem.description). The store keeps the value in memory; the cache on disk does \
        not have it. Pass onProblem to PersistentQueryCache to handle this yourself.
        """
      )
    }
  }

  /// The outbox could not write the change of an entry to its storage; it tries again.
  ///
  /// - Parameters:
  ///   - change: What was written, such as `change (from status 'inFlight')`.
  ///   - entry: The entry.
  ///   - error: The storage's error.
  public static func outboxStorageFailed(
    change: String,
    entry: MutationOutbox.Entry,
    error: any Error
  ) -> Self {
    Self(
      """
      The mutation outbox could not write the \(change) of entry \(entry.id) ('\(entry.kind)', \
      \(entry.idempotencyKey)) to its storage: \(error). It tries again with a backoff; the \
      lane waits for the write. Check the disk and the database's locks.
      """
    )
  }

  /// The outbox found its claim of an entry stale: another worker claimed the entry after this
  /// one's lease expired, or the entry is gone. The outbox stopped handling it.
  ///
  /// - Parameters:
  ///   - entry: The entry.
  ///   - error: The storage's refusal.
  public static func outboxClaimLost(
    entry: MutationOutbox.Entry,
    error: MutationOutbox.StaleClaimError
  ) -> Self {
    Self(
      """
      The mutation outbox lost its claim of entry \(entry.id) ('\(entry.kind)', \
      \(entry.idempotencyKey)): \(error) Its callers get MutationOutbox.StaleClaimError. If \
      deliveries often outlast their lease, give the outbox a longer leaseDuration.
      """
    )
  }

  /// A second mutation type was registered for a kind that another type already has.
  ///
  /// - Parameters:
  ///   - kind: The kind.
  ///   - registeredType: The type that has the kind.
  ///   - newType: The type that asked for it.
  public static func outboxKindAlreadyRegistered(
    kind: String,
    registeredType: any Any.Type,
    newType: any Any.Type
  ) -> Self {
    Self(
      """
      The outbox kind '\(kind)' is registered for \(_typeName(registeredType, qualified: true)), \
      so \(_typeName(newType, qualified: true)) cannot have it: entries of a kind are delivered \
      by one mutation type. Give each durable mutation a kind of its own.
      """
    )
  }
}
