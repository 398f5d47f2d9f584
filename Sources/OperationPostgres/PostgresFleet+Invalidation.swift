import Foundation
public import OperationCore
import OperationPersistence
import OperationSynchronization

// MARK: - Invalidation across instances

extension PostgresFleet {
  /// A client whose invalidations the fleet relays and applies, with the path elements of its
  /// stores by their canonical keys, to turn a prefix sent by another instance back into a path.
  struct RelayedClient: Sendable {
    let client: OperationClient
    var elements = [String: OperationPath.Element]()
  }

  /// Whether the current task applies another instance's invalidation, which is not relayed
  /// back.
  @TaskLocal static var isApplyingRemoteInvalidation = false

  /// Carries every `invalidate(matching:)` of `client` to the other instances of the fleet, and
  /// applies theirs to `client`.
  ///
  /// ```swift
  /// let relay = fleet.relayInvalidations(of: client)
  /// await client.invalidate(matching: ["users", 42])  // Every instance's users/42 is stale.
  /// ```
  ///
  /// An invalidation travels as its path's prefix, each element written by its canonical key
  /// (``PersistentQueryCache/elementKeys(for:)``), through the fleet's invalidation log and a
  /// notification at commit; never a value. On another instance it marks the matching stores
  /// stale (as `rerun: .none` does) and reruns those that are observed. Its predicate, if
  /// any, stays on the instance that made it: the others invalidate every store under the
  /// path, which at worst refetches more. A path with an element that has no stable key
  /// cannot be relayed, and is reported to `onProblem`.
  ///
  /// Relayed invalidations are written in order, in batches, by one task; ``flushInvalidations()``
  /// waits for them.
  ///
  /// - Parameter client: The client.
  /// - Returns: A subscription that stops the relaying when cancelled or released.
  public func relayInvalidations(of client: OperationClient) -> OperationSubscription {
    let id = self.state.withLock { state in
      defer { state.nextID += 1 }
      state.clients[state.nextID] = RelayedClient(client: client)
      return state.nextID
    }
    // NB: Subscribed before the existing stores are read, so that no store is missed.
    let additions = client.subscribe { [weak self] change in
      self?.register(change.storesAdded.map(\.path), forClient: id)
    }
    self.register(client.stores(matching: OperationPath()).map(\.path), forClient: id)
    let invalidations = client.subscribeToInvalidations { [weak self] path in
      guard !Self.isApplyingRemoteInvalidation else { return }
      self?.relay(path)
    }
    return OperationSubscription { [weak self] in
      additions.cancel()
      invalidations.cancel()
      self?.state.withLock { _ = $0.clients.removeValue(forKey: id) }
    }
  }

  private func register(_ paths: some Sequence<OperationPath>, forClient id: Int) {
    var elements = [String: OperationPath.Element]()
    for path in paths {
      for element in path {
        // NB: An element without a stable key matches nothing another instance sends.
        if let key = try? PersistentQueryCache.elementKeys(for: OperationPath(element: element))
          .first
        {
          elements[key] = element
        }
      }
    }
    guard !elements.isEmpty else { return }
    self.state.withLock { state in
      state.clients[id]?.elements.merge(elements) { _, new in new }
    }
  }

  /// The text of a prefix in the log: its element keys as a JSON array.
  static func encodePrefix(_ path: OperationPath) throws(PersistentKeyError) -> String {
    let keys = try PersistentQueryCache.elementKeys(for: path)
    // NB: Encoding an array of strings cannot fail.
    return String(decoding: try! JSONEncoder().encode(keys), as: UTF8.self)
  }

  private func relay(_ path: OperationPath) {
    let prefix: String
    do throws(PersistentKeyError) {
      prefix = try Self.encodePrefix(path)
    } catch {
      self.onProblem(.unrelayablePath(error))
      return
    }
    let starts = self.state.withLock { state in
      state.outgoingInvalidations.append(prefix)
      guard !state.isSendingInvalidations else { return false }
      state.isSendingInvalidations = true
      return true
    }
    if starts {
      Task { await self.sendInvalidations() }
    }
  }

  /// Writes the relayed invalidations, in batches, until none waits; a failed batch is written
  /// again after a backoff, so none is lost while the process lives.
  private func sendInvalidations() async {
    var failures = 0
    while true {
      let batch = self.state.withLock { state in
        Array(state.outgoingInvalidations.prefix(500))
      }
      if batch.isEmpty {
        let waiters = self.state.withLock { state -> [Int]? in
          // NB: A relay may have added one since the batch was read.
          guard state.outgoingInvalidations.isEmpty else { return nil }
          state.isSendingInvalidations = false
          defer { state.sendWaiters.removeAll() }
          return state.sendWaiters
        }
        guard let waiters else { continue }
        for waiter in waiters {
          self.flushWaiters.resume(waiter, with: .success(()))
        }
        return
      }
      do {
        try await self.persistence.appendInvalidations(
          batch,
          origin: self.instance,
          at: self.clock.now()
        )
        failures = 0
        self.state.withLock { state in
          state.outgoingInvalidations.removeFirst(batch.count)
          state.statistics.invalidationsSent += batch.count
        }
      } catch {
        failures += 1
        self.onProblem(.relayFailed(String(describing: error)))
        try? await self.delayer.delay(for: Self.backoff(afterFailures: failures))
      }
    }
  }

  /// Returns once every invalidation relayed so far is in the log, or when the calling task is
  /// cancelled (the invalidations are still written).
  public func flushInvalidations() async {
    await self.wait(in: self.flushWaiters) { state, id in
      guard state.isSendingInvalidations else { return false }
      state.sendWaiters.append(id)
      return true
    }
  }

  /// Applies the log's invalidations after the last one applied, in order; called by the
  /// listening loop only, so never twice at once.
  ///
  /// - Throws: The storage's error; the rows stay in the log, and the listening loop, which
  ///   fails with it, connects again and reads them.
  func applyInvalidations() async throws {
    while true {
      let last = self.state.withLock { $0.lastAppliedInvalidationID }
      let rows = try await self.persistence.invalidations(after: last, limit: 1_000)
      for row in rows {
        if row.origin != self.instance {
          await self.apply(row)
        }
        self.state.withLock { state in
          state.lastAppliedInvalidationID = row.id
          state.statistics.lastAppliedInvalidationID = row.id
        }
      }
      if rows.count < 1_000 { return }
    }
  }

  private func apply(_ row: LoggedInvalidation) async {
    guard let keys = try? JSONDecoder().decode([String].self, from: Data(row.prefix.utf8)) else {
      return
    }
    let clients = self.state.withLock { Array($0.clients.values) }
    for relayed in clients {
      var path = OperationPath()
      var isKnown = true
      for key in keys {
        guard let element = relayed.elements[key] else {
          // NB: No store of this client has the element, so none matches the prefix.
          isKnown = false
          break
        }
        path.append(element)
      }
      guard isKnown else { continue }
      await Self.$isApplyingRemoteInvalidation.withValue(true) {
        _ = await relayed.client.invalidate(matching: path, rerun: .none)
      }
      Self.rerunObservedStores(of: relayed.client, matching: path)
    }
    self.state.withLock { $0.statistics.invalidationsApplied += 1 }
    self.send(
      .invalidationApplied(
        id: row.id,
        prefix: row.prefix,
        sentAt: row.sentAt,
        appliedAt: self.clock.now()
      )
    )
  }

  /// Reruns the observed stores under `path`, as an invalidation's default policy does, without
  /// the listening loop waiting for them.
  private static func rerunObservedStores(of client: OperationClient, matching path: OperationPath)
  {
    let observed = client.stores(matching: path).filter { store in
      store.subscriberCount > 0 && !store.isMutation && store.isAutomaticRunningEnabled
    }
    guard !observed.isEmpty else { return }
    Task {
      await withTaskGroup(of: Void.self) { group in
        for store in observed {
          group.addTask { _ = try? await store.invalidateAndRerun().runIfNeeded() }
        }
      }
    }
  }

  /// Removes the invalidations older than `age` from the log, which otherwise grows with every
  /// invalidation; an instance that was disconnected longer than `age` misses the removed ones.
  ///
  /// - Parameter age: The age of the oldest invalidation to keep.
  /// - Returns: The number of invalidations removed.
  /// - Throws: ``PostgresStorageError``.
  @discardableResult
  public func trimInvalidationLog(olderThan age: OperationDuration) async throws -> Int {
    try await self.persistence.trimInvalidations(
      before: self.clock.now().addingTimeInterval(-age.timeInterval)
    )
  }
}
