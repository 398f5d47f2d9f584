import Foundation
public import OperationCore
public import OperationPersistence
import OperationSynchronization

// MARK: - One upstream call per key across the fleet

extension PostgresFleet {
  /// A fill that waits for the notification of its key.
  struct FillWaiter: Sendable {
    var isSignaled = false
    var continuation: CheckedContinuation<Void, Never>?
  }

  /// The fill of a key that another instance led failed; its followers get its error's
  /// description.
  public struct FillFailedError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The key.
    public let key: String
    /// The description of the leader's error.
    public let leaderError: String

    /// A description of the error.
    public var description: String {
      "The instance that fetched '\(self.key)' for the fleet failed: \(self.leaderError)"
    }
  }

  /// A follower waited longer than its `maxWait` for the fill of its key.
  public struct FillTimeoutError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The key.
    public let key: String
    /// How long the follower waited.
    public let waited: OperationDuration

    /// A description of the error.
    public var description: String {
      "No instance of the fleet filled '\(self.key)' within \(self.waited)."
    }
  }

  /// The cache of a coalesced operation is not on the fleet's storage.
  public struct CacheMismatchError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A description of the error.
    public var description: String {
      "coalesced(across:cache:) needs a PersistentQueryCache on the fleet's PostgresPersistence."
    }
  }

  /// Runs `run` on one instance of the fleet for concurrent misses of `key`, and gives the
  /// others its value through the shared cache.
  ///
  /// - Parameters:
  ///   - key: The cache key.
  ///   - version: The cache's stored version.
  ///   - maxAge: A cached value younger than this is returned with no call; `nil` for none.
  ///   - maxWait: The longest a follower waits.
  ///   - run: The upstream call.
  /// - Returns: The value.
  func fill<Value: Codable & Sendable>(
    key: String,
    version: String,
    maxAge: OperationDuration?,
    maxWait: OperationDuration,
    run: () async throws -> Value
  ) async throws -> Value {
    let start = self.clock.now()
    var following: Int64?
    var wasFollowing = false
    while true {
      try Task.checkCancellation()
      let waiter = self.registerFillWaiter(key: key)
      let now = self.clock.now()
      let step: PostgresPersistence.FillStep
      do {
        step = try await self.persistence.fillStep(
          key: key,
          version: version,
          holder: self.instance,
          following: following,
          requestedAt: start,
          freshSince: maxAge.map { now.addingTimeInterval(-$0.timeInterval) },
          now: now,
          leaseUntil: now.addingTimeInterval(self.leaseDuration.timeInterval)
        )
      } catch {
        self.removeFillWaiter(key: key, id: waiter)
        throw error
      }
      switch step {
      case .value(let data, _):
        self.removeFillWaiter(key: key, id: waiter)
        self.state.withLock { state in
          if following != nil {
            state.statistics.fillsFollowed += 1
          } else {
            state.statistics.fillsServedFresh += 1
          }
        }
        return try JSONDecoder().decode(Value.self, from: data)
      case .failed(let error):
        self.removeFillWaiter(key: key, id: waiter)
        throw FillFailedError(key: key, leaderError: error)
      case .lead(let generation):
        self.removeFillWaiter(key: key, id: waiter)
        self.state.withLock { state in
          state.statistics.fillsLed += 1
          if wasFollowing { state.statistics.fillsTakenOver += 1 }
        }
        return try await self.lead(key: key, version: version, generation: generation, run: run)
      case .follow(let generation, let expiresAt):
        following = generation
        wasFollowing = true
        let waited = now.timeIntervalSince(start)
        guard waited < maxWait.timeInterval else {
          self.removeFillWaiter(key: key, id: waiter)
          throw FillTimeoutError(key: key, waited: maxWait)
        }
        // NB: Woken by the fill's notification, or at the lease's expiry to take it over, or at
        // the end of `maxWait`; a small margin lets the expiry pass on the server's side too.
        let deadline = min(
          expiresAt.addingTimeInterval(0.01),
          start.addingTimeInterval(maxWait.timeInterval)
        )
        await self.waitForFill(key: key, id: waiter, until: deadline)
      }
    }
  }

  private func lead<Value: Codable & Sendable>(
    key: String,
    version: String,
    generation: Int64,
    run: () async throws -> Value
  ) async throws -> Value {
    let renewal = Task { [persistence, delayer, clock, leaseDuration] in
      while !Task.isCancelled {
        try? await delayer.delay(for: leaseDuration / 3)
        guard !Task.isCancelled else { return }
        let until = clock.now().addingTimeInterval(leaseDuration.timeInterval)
        let isHeld = try? await persistence.renewFillLease(
          key: key,
          generation: generation,
          until: until
        )
        if isHeld == false { return }
      }
    }
    defer { renewal.cancel() }
    let payload = Self.fillPayload(key: key)
    let value: Value
    do {
      value = try await run()
    } catch {
      renewal.cancel()
      // NB: A cancelled leader gives the lease up, so a follower takes over at once; a failed
      // one tells its followers why. Either way best effort: the lease expires otherwise.
      let isCancelled = error is CancellationError || Task.isCancelled
      let description = isCancelled ? nil : String(describing: error)
      // NB: On a task of its own: the leader's task may be cancelled, and the lease's end must
      // still be written.
      await Task { [persistence, clock] in
        _ = try? await persistence.endFill(
          key: key,
          generation: generation,
          entry: nil,
          error: description,
          payload: payload,
          at: clock.now()
        )
      }.value
      throw error
    }
    renewal.cancel()
    let now = self.clock.now()
    let entry = PersistedQueryEntry(
      key: key,
      version: version,
      value: try JSONEncoder().encode(value),
      valueUpdatedAt: now,
      lastAccessedAt: now
    )
    let isWritten = try await self.persistence.endFill(
      key: key,
      generation: generation,
      entry: entry,
      error: nil,
      payload: payload,
      at: now
    )
    if !isWritten {
      // NB: Another instance took the fill over while this one stalled: the value is this
      // instance's own, and never overwrites the fleet's.
      self.state.withLock { $0.statistics.fillsRefused += 1 }
      self.send(.fillRefused(key: key, generation: generation))
    }
    return value
  }

  static func fillPayload(key: String) -> String {
    key.utf8.count <= 7_000 ? "f:\(key)" : "f:"
  }

  private func registerFillWaiter(key: String) -> Int {
    self.state.withLock { state in
      defer { state.nextID += 1 }
      state.fillWaiters[key, default: [:]][state.nextID] = FillWaiter()
      return state.nextID
    }
  }

  private func removeFillWaiter(key: String, id: Int) {
    self.state.withLock { state in
      state.fillWaiters[key]?[id] = nil
      if state.fillWaiters[key]?.isEmpty == true { state.fillWaiters[key] = nil }
    }
  }

  private func waitForFill(key: String, id: Int, until deadline: Date) async {
    let delay = max(deadline.timeIntervalSince(self.clock.now()), 0)
    let timer = Task { [delayer] in
      try? await delayer.delay(for: .milliseconds(Int64((delay * 1_000).rounded(.up))))
      self.signalFill(key: key, id: id)
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let isSignaled = self.state.withLock { state -> Bool in
          guard let waiter = state.fillWaiters[key]?[id], !waiter.isSignaled else { return true }
          state.fillWaiters[key]?[id]?.continuation = continuation
          return false
        }
        if isSignaled { continuation.resume() }
      }
    } onCancel: {
      self.signalFill(key: key, id: id)
    }
    timer.cancel()
    self.removeFillWaiter(key: key, id: id)
  }

  private func signalFill(key: String, id: Int) {
    let continuation = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard state.fillWaiters[key]?[id] != nil else { return nil }
      state.fillWaiters[key]?[id]?.isSignaled = true
      defer { state.fillWaiters[key]?[id]?.continuation = nil }
      return state.fillWaiters[key]?[id]?.continuation
    }
    continuation?.resume()
  }

  func wakeFills(key: String) {
    let ids = self.state.withLock { state in state.fillWaiters[key].map { Array($0.keys) } ?? [] }
    for id in ids {
      self.signalFill(key: key, id: id)
    }
  }

  func wakeAllFills() {
    let waiters = self.state.withLock { state in
      state.fillWaiters.flatMap { key, waiters in waiters.keys.map { (key, $0) } }
    }
    for (key, id) in waiters {
      self.signalFill(key: key, id: id)
    }
  }
}

// MARK: - Modifier

extension StatefulOperationRequest where Value: Codable & Sendable, Failure == any Error {
  /// Runs this operation once across the fleet for concurrent misses of its key: one instance
  /// (the leader) calls upstream and writes the value to the shared cache; the others (the
  /// followers) wait for its notification and read the value.
  ///
  /// ```swift
  /// let user = UserQuery(id: 42).coalesced(across: fleet, cache: cache)
  /// ```
  ///
  /// The leader holds a lease on the key (a row of the fleet's lease table, with a generation)
  /// and renews it every third of ``PostgresFleet/leaseDuration`` while it runs. A leader that
  /// dies (`SIGKILL`) or stalls (`SIGSTOP`) stops renewing; once its lease expires, a follower
  /// takes the fill over with a higher generation and calls upstream itself. The stalled
  /// leader's late value is then refused by generation: it answers its own callers, but never
  /// reaches the shared cache (``PostgresFleet/Statistics/fillsRefused``). A leader that fails
  /// tells its followers, which throw ``PostgresFleet/FillFailedError``; a cancelled one gives
  /// its lease up, and a follower takes over at once.
  ///
  /// Combine it with `persisted(in:)` on the same cache, so that a store created later, on any
  /// instance, starts from the fleet's value; and with deduplication (on by default), so that
  /// the concurrent callers of one instance make one fill.
  ///
  /// - Parameters:
  ///   - fleet: The fleet.
  ///   - cache: A cache on the fleet's ``PostgresFleet/persistence``: the value is written
  ///     under the operation's key in the cache's version.
  ///   - maxAge: A value in the shared cache younger than this is returned with no call at
  ///     all; `nil` (the default) always fetches unless another instance is fetching.
  ///   - maxWait: The longest a follower waits, whatever the leases; then it throws
  ///     ``PostgresFleet/FillTimeoutError``. 60 seconds by default.
  /// - Returns: The modified operation.
  public func coalesced(
    across fleet: PostgresFleet,
    cache: PersistentQueryCache,
    reusingValuesYoungerThan maxAge: OperationDuration? = nil,
    maxWait: OperationDuration = .seconds(60)
  ) -> ModifiedOperation<Self, _FleetCoalescingModifier<Self>> {
    self.modifier(
      _FleetCoalescingModifier(
        fleet: fleet,
        cache: cache,
        maxAge: maxAge,
        maxWait: maxWait,
        operationType: underlyingOperationType(of: Self.self)
      )
    )
  }
}

/// The modifier behind `coalesced(across:cache:reusingValuesYoungerThan:maxWait:)`.
public struct _FleetCoalescingModifier<Operation: StatefulOperationRequest>: OperationModifier,
  Sendable
where Operation.Value: Codable & Sendable, Operation.Failure == any Error {
  let fleet: PostgresFleet
  let cache: PersistentQueryCache
  let maxAge: OperationDuration?
  let maxWait: OperationDuration
  let operationType: ErasedOperationType

  /// Runs the operation as the fill's leader, or returns the leader's value.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws -> Operation.Value {
    guard (self.cache.storage as? PostgresPersistence) === self.fleet.persistence else {
      throw PostgresFleet.CacheMismatchError()
    }
    let key = try PersistentQueryCache.key(
      for: operation.path,
      operationType: self.operationType.base
    )
    return try await self.fleet.fill(
      key: key,
      version: self.cache.storedVersion,
      maxAge: self.maxAge,
      maxWait: self.maxWait
    ) {
      try await operation.run(isolation: isolation, in: context, with: continuation)
    }
  }
}
