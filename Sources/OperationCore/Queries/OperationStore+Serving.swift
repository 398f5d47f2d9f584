import OperationSynchronization
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

// MARK: - Serving

extension OperationStore where State: _ServableQueryState {
  /// Returns the query's value, and runs the query only when the value cannot be served as it
  /// is: the call that serves requests on a server.
  ///
  /// ``fetch(using:handler:)`` always runs the query. This call first looks at the store's value
  /// and at its stale condition (the `staleWhen…` and `stale(after:)` modifiers):
  ///
  /// - **Fresh value:** returns it; nothing runs.
  /// - **No value, an invalidated store, or a stale value** (without ``OperationContext/earlyRefresh``,
  ///   or past its serving window): waits for a run and returns its value. When the store has a
  ///   run in flight, the call waits for that run instead of starting one, however many callers
  ///   arrive at once; otherwise it starts exactly one run, which later callers join.
  ///
  /// With ``OperationContext/earlyRefresh`` set and a `stale(after:)` modifier (which tells when
  /// the value goes stale), two more cases return the current value at once:
  ///
  /// - **Stale for less than the serving window:** returns the value, and makes sure exactly one
  ///   refresh runs in the background (none starts when a run is in flight).
  /// - **Fresh, near its deadline:** refreshes it early, in the background, with the
  ///   probabilistic rule that ``EarlyRefresh`` describes.
  ///
  /// ```swift
  /// let store = client.store(
  ///   for: PriceQuery(sku: "A1").stale(after: .seconds(60)).refreshEarly()
  /// )
  /// let price = try await store.fetchIfNeeded()  // Runs: the store has no value.
  /// let same = try await store.fetchIfNeeded()  // Returns the value; nothing runs.
  /// ```
  ///
  /// A background refresh is a run of the store like any other: subscribers and instruments see
  /// it, and its value or error is recorded in the store's state. Its error is never thrown to
  /// the callers that were served the value. A call that waits for a run already in flight is
  /// reported to instruments as ``OperationInstrumentEvent/joinedRunInFlight``.
  ///
  /// The early refresh rule needs `δ`, the duration of the store's last successful run; the
  /// store measures the runs that this call starts, on the context's
  /// ``OperationContext/operationClock``. Until one such run has succeeded, no value is refreshed
  /// early.
  ///
  /// Cancellation: a cancelled caller that waits stops waiting and throws `CancellationError`
  /// when `Failure` can hold it (with a typed `Failure` that cannot, it waits for the result).
  /// The run it waited for goes on, for the other callers and for the store, and is never
  /// cancelled on its behalf. A caller served the current value returns it, cancelled or not.
  ///
  /// - Parameter context: The context of the call: it decides staleness, holds the early
  ///   refresh settings, and is the context of a run that the call starts; the store's context
  ///   by default.
  /// - Returns: The value served, current or fetched.
  /// - Throws: The error of the run the call waited for, or `CancellationError` when the caller
  ///   was cancelled while it waited.
  public func fetchIfNeeded(
    using context: OperationContext? = nil
  ) async throws(State.Failure) -> State.OperationValue {
    while true {
      let (state, callContext, isInvalidated, lastRunDuration) = self.lock.withLock {
        ($0.state, context ?? $0.context, $0.runs.isInvalidated, $0.serving.lastRunDuration)
      }
      // NB: The clock, the stale predicates and the random source are your code, so they run on
      // the snapshot, with no lock held; the store's lock then checks that the value did not
      // change meanwhile before it starts anything.
      let now = callContext.operationClock.now()
      let value = state._servableValue
      let rule = ServingRule(
        hasValue: value != nil,
        isInvalidated: isInvalidated,
        age: state.valueLastUpdatedAt.map { .seconds(now.timeIntervalSince($0)) },
        freshnessLifetime: callContext.freshnessLifetime,
        lastRunDuration: lastRunDuration,
        settings: callContext.earlyRefresh
      )
      let decision = rule.decide(
        isStale: { Self.isStale(state, in: callContext) },
        random: { callContext.earlyRefresh?.random.next() ?? 1 }
      )
      switch (decision, value) {
      case (.serve, let value?):
        return value
      case (.serveAndRefresh, let value?):
        self.refreshInBackground(ifUnchangedSince: state, context: context, start: now)
        return value
      default:
        guard let run = self.joinOrStartRun(ifUnchangedSince: state, context: context, start: now)
        else { continue }
        return try await self.wait(for: run)
      }
    }
  }

  /// Starts one run in the background, unless a run is in flight or the value changed since the
  /// caller looked at it (a refresh that ended meanwhile).
  private func refreshInBackground(
    ifUnchangedSince seen: State,
    context: OperationContext?,
    start: Date
  ) {
    self.lock.withLock { storage in
      guard Self.holdsValue(of: seen, storage.state), storage.runs.runsInFlightCount == 0 else {
        return
      }
      _ = self.startServingRun(in: &storage, context: context, start: start)
    }
  }

  /// The run to wait for: the serving run in flight, else the newest run in flight, else a new
  /// run; `nil` when the value changed since the caller looked at it, so that it looks again.
  private func joinOrStartRun(
    ifUnchangedSince seen: State,
    context: OperationContext?,
    start: Date
  ) -> ServingRun? {
    let (run, joined) = self.lock.withLock { storage -> (ServingRun?, Bool) in
      guard Self.holdsValue(of: seen, storage.state) else { return (nil, false) }
      if let run = storage.serving.run, run.isNewestRunInFlight(of: storage.runs) {
        return (run, true)
      }
      // NB: A run that a serving call did not start (a fetch, a subscriber's run): the newest
      // one, which no reset or invalidation has superseded. Finding it walks the state's tasks,
      // which a serving call does only when the store has such runs.
      if storage.runs.runsInFlightCount > 0,
        let task = storage.state.activeTasks.last,
        let sequence = task.context.storeRunOrder?.sequence,
        !storage.runs.hasReturned(sequence)
      {
        let run = ServingRun(sequence: sequence, newestUntil: storage.runs.nextRunNumber)
        storage.serving.run = run
        self.lock.enqueue { self.drive(task, into: run, start: nil) }
        return (run, true)
      }
      return (self.startServingRun(in: &storage, context: context, start: start), false)
    }
    if joined {
      self.recordInstrumentEvent(.joinedRunInFlight)
    }
    return run
  }

  /// Creates a run that serving calls wait for, and starts it once the lock is released.
  private func startServingRun(
    in storage: inout Storage,
    context: OperationContext?,
    start: Date
  ) -> ServingRun {
    let task = self.makeTask(
      in: &storage,
      context: context,
      handler: nil,
      name: "Task",
      overridesName: false
    )
    let run = ServingRun(
      sequence: storage.runs.nextRunNumber - 1,
      newestUntil: storage.runs.nextRunNumber
    )
    storage.serving.run = run
    self.lock.enqueue { self.drive(task, into: run, start: start) }
    return run
  }

  /// Runs `task` (or waits for it, when it started elsewhere) in a task of its own, which no
  /// caller cancels, and hands its result to the run's waiters; with `start`, records how long a
  /// successful run took.
  private func drive(
    _ task: OperationTask<State.OperationValue, State.Failure>,
    into run: ServingRun,
    start: Date?
  ) {
    Task {
      let result: Result<State.OperationValue, State.Failure>
      do throws(State.Failure) {
        result = .success(try await task.runIfNeeded())
      } catch {
        result = .failure(error)
      }
      let duration = start.map { start in
        OperationDuration.seconds(
          max(0, task.context.operationClock.now().timeIntervalSince(start))
        )
      }
      self.lock.withLock { storage in
        if case .success = result, let duration {
          storage.serving.lastRunDuration = duration
        }
        if storage.serving.run === run {
          storage.serving.run = nil
        }
      }
      run.finish(with: result)
    }
  }

  private func wait(
    for run: ServingRun
  ) async throws(State.Failure) -> State.OperationValue {
    let cancellation = (CancellationError() as? State.Failure).map {
      Result<State.OperationValue, State.Failure>.failure($0) as any Sendable
    }
    let outcome = await run.wait(cancellation: cancellation)
    // NB: Every outcome is a `Result<State.OperationValue, State.Failure>`: the drive's result
    // or `cancellation`.
    return try (outcome as! Result<State.OperationValue, State.Failure>).get()
  }

  /// Whether `current` holds the same value as `seen`: no value was recorded since.
  private static func holdsValue(of seen: State, _ current: State) -> Bool {
    seen.valueUpdateCount == current.valueUpdateCount
      && seen.valueLastUpdatedAt == current.valueLastUpdatedAt
  }
}

// MARK: - Rule

/// What a serving call does with the value it finds, decided from a snapshot of the store, so
/// that the rule is tested without a store.
struct ServingRule {
  enum Decision: Hashable {
    /// Return the current value.
    case serve
    /// Return the current value, and refresh it in the background.
    case serveAndRefresh
    /// Wait for a run and return its value.
    case wait
  }

  /// Whether the state has a value to serve.
  var hasValue: Bool
  /// Whether the store is invalidated: its value is known to be outdated.
  var isInvalidated: Bool
  /// How old the value is by the context's clock; `nil` when it was never updated.
  var age: OperationDuration?
  /// How long the value stays fresh, when a `stale(after:)` modifier says so.
  var freshnessLifetime: OperationDuration?
  /// How long the last successful run that a serving call started took.
  var lastRunDuration: OperationDuration?
  /// The settings of serving stale values and refreshing early.
  var settings: EarlyRefresh?

  /// Decides; `isStale` (the stale predicates) and `random` are called only when needed.
  func decide(isStale: () -> Bool, random: () -> Double) -> Decision {
    guard self.hasValue, !self.isInvalidated else { return .wait }
    guard let settings, let lifetime = self.freshnessLifetime, let age else {
      return isStale() ? .wait : .serve
    }
    if isStale() {
      // NB: Only a value that is stale by its age went stale at a known moment; one made stale
      // earlier by another predicate is waited for, as without settings.
      guard age > lifetime, age - lifetime <= settings.servingWindow else { return .wait }
      return .serveAndRefresh
    }
    guard let lastRunDuration else { return .serve }
    let headStart = settings.headStart(lastRunDuration: lastRunDuration, random: random())
    return age + headStart >= lifetime ? .serveAndRefresh : .serve
  }
}

// MARK: - Serving state

/// What serving calls keep in a store, under the store's lock.
struct StoreServing: Sendable {
  /// How long the last successful run that a serving call started took, by its context's
  /// clock: the `δ` of the early refresh rule.
  var lastRunDuration: OperationDuration?
  /// The run that serving calls wait for, until it ends.
  var run: ServingRun?
}

/// A run of a store that serving calls wait for: it hands its result to every waiter.
///
/// A waiter that is cancelled stops waiting; the run goes on.
final class ServingRun: Sendable {
  // NB: Results are `any Sendable` (a `Result` of the store's types) so that this class is not
  // generic: the store keeps it in its storage, whatever its state.
  typealias Waiter = UnsafeContinuation<any Sendable, Never>

  private enum Phase {
    case running([Int: Waiter])
    case finished(any Sendable)
  }

  /// The number of the store's run.
  let sequence: Int
  /// The store's next run number when this run was the newest in flight.
  private let newestUntil: Int
  private let phase = Lock(Phase.running([:]))

  init(sequence: Int, newestUntil: Int) {
    self.sequence = sequence
    self.newestUntil = newestUntil
  }

  /// Whether the run is still in flight and no run was created since it became the newest: a
  /// reset, an invalidation's rerun or a plain fetch may have superseded it otherwise.
  func isNewestRunInFlight<RunTask, Timer, EffectEnd>(
    of runs: StoreRunStateMachine<RunTask, Timer, EffectEnd>
  ) -> Bool {
    runs.nextRunNumber == self.newestUntil && runs.runsInFlightCount > 0
      && !runs.hasReturned(self.sequence)
  }

  /// Waits for the result, or returns `cancellation` once the caller is cancelled.
  ///
  /// - Parameter cancellation: The result of a cancelled caller; `nil` to wait for the run
  ///   whatever happens.
  /// - Returns: The run's result, or `cancellation`.
  func wait(cancellation: (any Sendable)?) async -> any Sendable {
    let id = nextServingWaiter.add(1, ordering: .relaxed).newValue
    guard let cancellation else {
      return await withUnsafeContinuation { self.add($0, id: id, cancellation: nil) }
    }
    return await withTaskCancellationHandler {
      await withUnsafeContinuation { self.add($0, id: id, cancellation: cancellation) }
    } onCancel: {
      let waiter = self.phase.withLock { phase -> Waiter? in
        guard case .running(var waiters) = phase else { return nil }
        let waiter = waiters.removeValue(forKey: id)
        phase = .running(waiters)
        return waiter
      }
      waiter?.resume(returning: cancellation)
    }
  }

  private func add(_ waiter: Waiter, id: Int, cancellation: (any Sendable)?) {
    // NB: The task's cancellation flag is set before its handler runs. So a caller cancelled
    // before it is added is answered here, and one cancelled after finds itself in `waiters`.
    let immediate = self.phase.withLock { phase -> (any Sendable)? in
      switch phase {
      case .finished(let result):
        return result
      case .running(var waiters):
        if let cancellation, Task.isCancelled { return cancellation }
        waiters[id] = waiter
        phase = .running(waiters)
        return nil
      }
    }
    if let immediate {
      waiter.resume(returning: immediate)
    }
  }

  /// Hands the run's result to every waiter, and to every later one.
  func finish(with result: any Sendable) {
    let waiters = self.phase.withLock { phase -> [Waiter] in
      guard case .running(let waiters) = phase else { return [] }
      phase = .finished(result)
      return Array(waiters.values)
    }
    for waiter in waiters {
      waiter.resume(returning: result)
    }
  }
}

/// The number of the next waiter of a serving run, unique in the process.
private let nextServingWaiter = Atomic<Int>(0)

// MARK: - Servable states

/// A query state whose value a serving call can return; lets ``OperationStore`` offer
/// ``OperationStore/fetchIfNeeded(using:)`` for queries and queries with a default value.
public protocol _ServableQueryState: _QueryStateProtocol {
  /// The current value as a fetch returns it, or `nil` when the state has none to serve.
  var _servableValue: Value? { get }
}

extension QueryState: _ServableQueryState {
  /// The current value, or `nil` before the first one.
  public var _servableValue: Value? {
    self.currentValue
  }
}

extension DefaultOperationState: _ServableQueryState
where Base: _ServableQueryState, Base.DefaultStateValue == Base.Value {
  /// The current value, or the default value before the first one.
  public var _servableValue: Base.Value? {
    self.currentValue
  }
}
