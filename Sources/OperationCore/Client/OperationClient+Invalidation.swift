import OperationSynchronization

// MARK: - Invalidation

extension OperationClient {
  /// Which of the invalidated stores run again at once.
  public enum RerunPolicy: Hashable, Sendable {
    /// The stores that have subscribers and whose automatic running is enabled, as TanStack
    /// Query's default `refetchType: 'active'`. The others run when next observed.
    case observed

    /// Every store, observed or not, except stores of mutations.
    case all

    /// None: the stores are only marked stale, and run when next observed.
    case none
  }

  /// What an invalidation, a reset or a cancellation by path did.
  public struct BulkResult: Sendable {
    /// The paths of the stores that matched the path and the predicate, in no particular order.
    public var matched = [OperationPath]()

    /// The paths of the stores that ran again.
    public var rerun = [OperationPath]()

    /// The errors of the reruns that failed, by path.
    public var failures = [OperationPath: any Error]()
  }

  /// Marks the stores whose paths start with `path` stale, reruns those that `rerun` names, and
  /// returns once those reruns have finished.
  ///
  /// ```swift
  /// // After creating a post: every feed that is on screen fetches again now; the others fetch
  /// // when they next appear.
  /// await client.invalidate(matching: ["feed"])
  /// ```
  ///
  /// An invalidated store is stale until a run that starts after the invalidation succeeds,
  /// whatever its stale conditions say, so its next subscriber starts a run (when automatic
  /// running is enabled). A rerun does not join a run in flight that started earlier, and the
  /// results of such runs no longer reach the store; see
  /// ``OperationStore/invalidateAndRerun()``. Mutations are marked like other stores, but never
  /// run again. A paginated store's rerun is a plain run, which (as in swift-operation 0.5)
  /// fetches the first page again and replaces the pages with it.
  ///
  /// The cost is proportional to the number of matching stores, not to the size of the client.
  /// Cancelling the calling task cancels the reruns it started.
  ///
  /// - Parameters:
  ///   - path: The prefix; the empty path matches every store.
  ///   - rerun: Which stores run again at once; ``RerunPolicy/observed`` by default.
  ///   - predicate: Whether to invalidate a matching store; it runs with no lock held.
  /// - Returns: What was invalidated and rerun, and the errors of the failed reruns.
  @discardableResult
  public func invalidate(
    matching path: OperationPath = OperationPath(),
    rerun: RerunPolicy = .observed,
    where predicate: (OpaqueOperationStore) -> Bool = { _ in true }
  ) async -> BulkResult {
    let handlers = self.lock.withLock { $0.invalidationSubscribers.handlers }
    for handler in handlers {
      handler(path)
    }
    return await self.forEachStore(matching: path, rerun: rerun, where: predicate) {
      store,
      reruns in
      if !reruns {
        store.invalidate()
      }
    }
  }

  /// Calls `handler` with the path of each ``invalidate(matching:rerun:where:)`` made on this
  /// client, before its stores are marked: what carries invalidations to other instances of a
  /// service (OperationPostgres' `PostgresFleet`).
  ///
  /// The predicate of an invalidation stays local: the handler gets the path only.
  ///
  /// - Parameter handler: Receives each invalidated path, with no lock held.
  /// - Returns: A subscription that ends when cancelled or released.
  public func subscribeToInvalidations(
    _ handler: @escaping @Sendable (OperationPath) -> Void
  ) -> OperationSubscription {
    let id = self.lock.withLock { $0.invalidationSubscribers.add(handler) }
    return OperationSubscription { [weak self] in
      self?.lock.withLock { _ = $0.invalidationSubscribers.remove(id: id) }
    }
  }

  /// Cancels the runs in flight of the stores whose paths start with `path`.
  ///
  /// Each cancelled run ends as a cancelled run does; see ``OperationStore/cancelRuns()``.
  /// Cancel before an optimistic update so that no fetch in flight lands on top of it, as
  /// TanStack Query's `cancelQueries` is used (stores protected by a mutation refuse such
  /// results anyway; see ``OperationStore/applyOptimisticUpdate(_:)``).
  ///
  /// - Parameters:
  ///   - path: The prefix; the empty path matches every store.
  ///   - predicate: Whether to cancel a matching store's runs; it runs with no lock held.
  /// - Returns: The number of runs cancelled.
  @discardableResult
  public func cancel(
    matching path: OperationPath = OperationPath(),
    where predicate: (OpaqueOperationStore) -> Bool = { _ in true }
  ) -> Int {
    var count = 0
    for store in self.stores(matching: path) where predicate(store) {
      count += store.cancelRuns()
    }
    return count
  }

  /// Restores the initial state of the stores whose paths start with `path`, cancels their
  /// runs, and reruns those that `rerun` names; returns once those reruns have finished.
  ///
  /// Results of runs that started before the reset never reach the stores; see
  /// ``OperationStore/resetState(using:)``.
  ///
  /// - Parameters:
  ///   - path: The prefix; the empty path matches every store.
  ///   - rerun: Which stores run again at once; ``RerunPolicy/observed`` by default, as
  ///     TanStack Query's `resetQueries` refetches active queries.
  ///   - predicate: Whether to reset a matching store; it runs with no lock held.
  /// - Returns: What was reset and rerun, and the errors of the failed reruns.
  @discardableResult
  public func resetState(
    matching path: OperationPath = OperationPath(),
    rerun: RerunPolicy = .observed,
    where predicate: (OpaqueOperationStore) -> Bool = { _ in true }
  ) async -> BulkResult {
    await self.forEachStore(matching: path, rerun: rerun, where: predicate) { store, _ in
      store.resetState()
    }
  }

  /// Calls `body` on each matching store (with whether it reruns), then reruns those that
  /// `rerun` names, and waits for the reruns.
  private func forEachStore(
    matching path: OperationPath,
    rerun: RerunPolicy,
    where predicate: (OpaqueOperationStore) -> Bool,
    _ body: (OpaqueOperationStore, _ reruns: Bool) -> Void
  ) async -> BulkResult {
    var result = BulkResult()
    var reruns = [(OperationPath, OperationTask<any Sendable, any Error>)]()
    for store in self.stores(matching: path) where predicate(store) {
      result.matched.append(store.path)
      let storeReruns = Self.reruns(store, policy: rerun)
      body(store, storeReruns)
      if storeReruns {
        reruns.append((store.path, store.invalidateAndRerun()))
      }
    }
    await Self.wait(for: reruns, into: &result)
    return result
  }

  private static func reruns(_ store: OpaqueOperationStore, policy: RerunPolicy) -> Bool {
    switch policy {
    case .observed:
      store.subscriberCount > 0 && !store.isMutation && store.isAutomaticRunningEnabled
    case .all: !store.isMutation
    case .none: false
    }
  }

  private static func wait(
    for reruns: [(OperationPath, OperationTask<any Sendable, any Error>)],
    into result: inout BulkResult
  ) async {
    guard !reruns.isEmpty else { return }
    result.rerun = reruns.map(\.0)
    let failures = await withTaskGroup(of: (OperationPath, (any Error)?).self) { group in
      for (path, task) in reruns {
        group.addTask {
          do {
            try await task.runIfNeeded()
            return (path, nil)
          } catch {
            return (path, error)
          }
        }
      }
      var failures = [OperationPath: any Error]()
      for await case (let path, let error?) in group {
        failures[path] = error
      }
      return failures
    }
    result.failures = failures
  }
}
