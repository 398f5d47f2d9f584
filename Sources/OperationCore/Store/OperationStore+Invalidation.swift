import OperationSynchronization

// MARK: - Invalidation

extension OperationStore {
  /// Whether the store was invalidated and no run that started since has succeeded.
  ///
  /// An invalidated store is stale whatever its stale conditions say; see ``invalidate()``.
  public var isInvalidated: Bool {
    self.lock.withLock { $0.runs.isInvalidated }
  }

  /// Marks the value stale until a run that starts after this call succeeds, or a value is set.
  ///
  /// The store does not run now. Its next subscriber starts a run when automatic running is
  /// enabled, as for any stale store. To run at once, use ``invalidateAndRerun()`` or
  /// ``OperationClient/invalidate(matching:rerun:where:)``.
  public func invalidate() {
    self.lock.withLock { storage in
      storage.runs.invalidate(supersedingRuns: false)
      self.notifyStateChanged(storage, runHandler: nil)
    }
  }

  /// Marks the value stale and starts a run whose result supersedes every run in flight.
  ///
  /// The new run does not join a deduplicated run that started earlier, and results of runs
  /// that started earlier no longer reach the state, even when they arrive later: whatever
  /// happened before the invalidation cannot overwrite what the rerun fetches. The callers of
  /// those earlier runs still receive their results.
  ///
  /// - Returns: The task of the rerun, already started.
  @discardableResult
  public func invalidateAndRerun() -> OperationTask<State.OperationValue, State.Failure> {
    let task = self.lock.withLock { storage in
      storage.runs.invalidate(supersedingRuns: true)
      return self.makeTask(
        in: &storage,
        context: nil,
        handler: nil,
        name: "Task",
        overridesName: false
      )
    }
    task.start()
    return task
  }

  /// Cancels every run of the store that has not finished, including runs created with
  /// ``runTask(using:)`` and not yet started.
  ///
  /// Each cancelled run ends as a cancelled run does: with `CancellationError` for its callers,
  /// and `.result(.failure(CancellationError()))` in the state unless a later run superseded it.
  ///
  /// - Returns: The number of runs cancelled.
  @discardableResult
  public func cancelRuns() -> Int {
    self.lock.withLock { storage in
      let runs = storage.runs.runsToCancel
      guard !runs.isEmpty else { return 0 }
      self.lock.enqueue {
        for run in runs {
          run.cancel()
        }
      }
      return runs.count
    }
  }

  /// The number of runs created and not yet finished.
  public var runsInFlightCount: Int {
    self.lock.withLock { $0.runs.runsInFlightCount }
  }
}

// MARK: - Run order

/// Where a run of a store stands among the store's other runs, carried in the run's context.
@usableFromInline
package struct StoreRunOrder: Sendable {
  /// The number of the run; later runs have larger numbers.
  @usableFromInline package let sequence: Int

  /// The smallest number of a run whose result the store accepted when this run was created;
  /// a run never joins an earlier run than this, as that run's result would be refused.
  @usableFromInline package let floor: Int

  @inlinable
  init(sequence: Int, floor: Int) {
    self.sequence = sequence
    self.floor = floor
  }

  /// Whether a run created with `self` may share the run created with `other`.
  package func mayJoin(_ other: StoreRunOrder) -> Bool {
    other.sequence >= self.floor
  }
}
