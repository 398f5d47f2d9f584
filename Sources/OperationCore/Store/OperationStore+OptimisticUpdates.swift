import OperationSynchronization

// MARK: - Optimistic updates

extension OperationStore {
  /// Shows `change` in the store's value at once, before the mutation that makes it finishes,
  /// and protects the store from older data until the change is committed or rolled back.
  ///
  /// ```swift
  /// let update = feed.applyOptimisticUpdate { posts in
  ///   posts?.insert(draft, at: 0)
  /// }
  /// do {
  ///   try await createPost(draft)
  ///   update.commit()
  /// } catch {
  ///   update.rollBack()  // The feed is exactly as it would be without the draft.
  /// }
  /// ```
  ///
  /// The store keeps the value it had before the first change in flight, and shows it with every
  /// change in flight applied in order. Rolling one back removes it alone: the value becomes the
  /// earlier value with the other changes applied again, so two mutations of one store can fail
  /// and succeed independently. Setting the value while changes are in flight replaces the
  /// earlier value; the changes in flight are applied again on top of it, and committed ones
  /// are taken as part of it.
  ///
  /// While a change is in flight, results of runs do not reach the state, and when the last one
  /// ends, results of runs that started before that no longer do either: a fetch that began
  /// before the mutation finished would show data from before the mutation. If a result was
  /// refused that way, the store is invalidated and reruns when it has subscribers and automatic
  /// running is enabled, as SWR revalidates after a mutation.
  ///
  /// `change` is your code: it runs with no lock of the library held, and again each time the
  /// value it applies to changes, so it must depend on its argument only.
  ///
  /// - Parameter change: Changes the value.
  /// - Returns: The change, to commit or roll back. Releasing it unresolved rolls it back.
  public func applyOptimisticUpdate(
    _ change: @escaping @Sendable (inout State.StateValue) -> Void
  ) -> OptimisticUpdate {
    let update = self.beginProtection(change: change)
    self.reapplyOptimisticChanges(using: nil)
    return update
  }

  /// Protects the store from older data while a mutation runs, without changing its value; the
  /// protection ends when the returned update is committed or rolled back.
  package func beginProtection(
    change: (@Sendable (inout State.StateValue) -> Void)? = nil
  ) -> OptimisticUpdate {
    let id = self.lock.withLock { storage in
      storage.runs.beginProtection()
      return storage.optimistic.begin(change: change, base: storage.state.currentValue)
    }
    return OptimisticUpdate { [self] keepsChange in
      self.endProtection(id: id, keepsChange: keepsChange)
    }
  }

  private func endProtection(id: Int, keepsChange: Bool) {
    let (reapplies, reruns) = self.lock.withLock { storage in
      (storage.optimistic.end(id: id, keepsChange: keepsChange), storage.runs.endProtection())
    }
    if reapplies {
      self.reapplyOptimisticChanges(using: nil)
    }
    if reruns, self.isAutomaticRunningEnabled {
      self.invalidateAndRerun()
    }
  }

  /// Computes the earlier value with the changes in flight applied, with no lock held, and shows
  /// it unless the changes or the earlier value changed meanwhile (whoever changed them computes
  /// again).
  func reapplyOptimisticChanges(using context: OperationContext?) {
    let snapshot = self.lock.withLock { $0.optimistic.snapshot }
    guard let snapshot else { return }
    var value = snapshot.base
    for change in snapshot.changes {
      change(&value)
    }
    self.lock.withLock { storage in
      guard storage.optimistic.version == snapshot.version else { return }
      storage.optimistic.applied()
      storage.state.update(with: .success(value), using: context ?? storage.context)
      self.notifyValueRecorded(storage)
      self.notifyStateChanged(storage, runHandler: nil)
    }
  }

  /// Sets the value to `transform` of the current one, with `transform` running with no lock
  /// held; tried again if the value changed while `transform` ran.
  package func updateValue(
    using context: OperationContext? = nil,
    _ transform: @Sendable (inout State.StateValue) -> Void
  ) {
    while true {
      let (current, count, version) = self.lock.withLock {
        ($0.state.currentValue, $0.state.valueUpdateCount, $0.optimistic.version)
      }
      var value = current
      transform(&value)
      let rebased = self.lock.withLock { storage -> Bool? in
        guard storage.state.valueUpdateCount == count, storage.optimistic.version == version
        else { return nil }
        return self.record(.success(value), using: context, in: &storage)
      }
      guard let rebased else { continue }
      if rebased {
        self.reapplyOptimisticChanges(using: context)
      }
      return
    }
  }

  /// Records a result set directly on the store, under its lock; returns whether optimistic
  /// changes in flight must be applied again on top of it, once the lock is released.
  func record(
    _ result: Result<State.StateValue, State.Failure>,
    using context: OperationContext?,
    in storage: inout Storage
  ) -> Bool {
    if case .success(let value) = result {
      if storage.optimistic.hasChanges {
        storage.optimistic.rebase(on: value)
        return true
      }
      storage.runs.valueSet()
    }
    storage.state.update(with: result, using: context ?? storage.context)
    if case .success = result {
      self.notifyValueRecorded(storage)
    }
    self.notifyStateChanged(storage, runHandler: nil)
    return false
  }
}

// MARK: - OptimisticUpdate

/// A change shown in a store before the mutation that makes it finishes; see
/// ``OperationStore/applyOptimisticUpdate(_:)``.
///
/// Commit it when the mutation succeeds and roll it back when it fails. Only the first call
/// counts; releasing the update without either rolls it back, so that a store is never protected
/// forever.
public final class OptimisticUpdate: Sendable {
  private let resolve: Lock<(@Sendable (Bool) -> Void)?>

  init(resolve: @escaping @Sendable (Bool) -> Void) {
    self.resolve = Lock(resolve)
  }

  deinit {
    self.resolve.withLock { $0 }?(false)
  }

  /// Keeps the change: it stays in the value until a later value replaces it.
  public func commit() {
    self.take()?(true)
  }

  /// Removes the change, and only it, from the value.
  public func rollBack() {
    self.take()?(false)
  }

  private func take() -> (@Sendable (Bool) -> Void)? {
    self.resolve.withLock { resolve in
      defer { resolve = nil }
      return resolve
    }
  }
}
