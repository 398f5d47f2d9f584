public import Operation

// MARK: - (16): cancelling the callers of one deduplicated run

/// The figures of ``cancelDeduplicatedCallers(count:)``.
public struct CancelledCallerFigures: Sendable {
  /// The number of callers.
  public let callers: Int
  /// From the first cancellation to the last caller's return.
  public let cancelNanoseconds: Int
  /// How many times the query's body ran.
  public let bodyRuns: Int
  /// How many runs of the body ended because they were cancelled.
  public let cancelledBodies: Int

  /// The nanoseconds per cancelled caller.
  public var nanosecondsPerCaller: Double {
    Double(self.cancelNanoseconds) / Double(max(self.callers, 1))
  }
}

/// A query whose body waits until it is cancelled.
public struct UntilCancelledQuery: QueryRequest, Sendable {
  /// Counts the runs of the body.
  public let runs: RunCounter
  /// Counts the runs of the body that ended cancelled.
  public let cancellations: RunCounter

  /// Creates the query.
  public init(runs: RunCounter, cancellations: RunCounter) {
    self.runs = runs
    self.cancellations = cancellations
  }

  /// The one path of the query.
  public var path: OperationPath {
    ["until-cancelled"]
  }

  /// Counts the run, then sleeps for a day, which a cancellation ends.
  public func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.runs.increment()
    do {
      try await Task.sleep(for: .seconds(86_400))
    } catch {
      self.cancellations.increment()
      throw error
    }
    return 1
  }
}

/// (16) Makes `count` callers of `fetch()` share one run of a deduplicated store, then cancels
/// every caller, and times the cancellations until the last caller has returned.
///
/// Each caller is a task of its own. The callers are cancelled once all of them have joined the
/// run: the body has started, and the deduplication predicate (which every caller but the first
/// calls once, right before it joins) has been called `count - 1` times; a short sleep then lets
/// the last caller finish joining. The run is cancelled when its last caller leaves, which ends
/// the body.
public func cancelDeduplicatedCallers(count: Int) async -> CancelledCallerFigures {
  let runs = RunCounter()
  let cancellations = RunCounter()
  let considered = RunCounter()
  let store = OperationStore.detached(
    query: UntilCancelledQuery(runs: runs, cancellations: cancellations).deduplicated { _, _ in
      considered.increment()
      return true
    },
    initialValue: nil
  )
  let callers = (0..<count).map { _ in
    Task { _ = try? await store.fetch() }
  }
  while runs.count < 1 || considered.count < count - 1 {
    try? await Task.sleep(for: .milliseconds(1))
  }
  try? await Task.sleep(for: .milliseconds(50))
  let start = ContinuousClock.now
  for caller in callers {
    caller.cancel()
  }
  for caller in callers {
    await caller.value
  }
  let elapsed = nanoseconds(since: start)
  // NB: The run's body ends a moment after the last caller left.
  while cancellations.count < 1 && runs.count == 1 {
    try? await Task.sleep(for: .milliseconds(1))
  }
  return CancelledCallerFigures(
    callers: count,
    cancelNanoseconds: elapsed,
    bodyRuns: runs.count,
    cancelledBodies: cancellations.count
  )
}
