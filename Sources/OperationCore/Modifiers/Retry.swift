import Synchronization

extension OperationRequest {
  /// Retries the operation when it fails, waiting by the context's backoff function between
  /// attempts.
  ///
  /// The operation runs at most `limit + 1` times and throws the last attempt's error. Before
  /// retry *n* (from 1) the modifier waits `operationBackoffFunction(n)` on the context's
  /// delayer. Only the innermost `retry` acts: an outer one, such as the client's default, passes
  /// through. The context's ``OperationContext/operationMaxRetries`` is read at run time, so
  /// setting it on a store's context overrides `limit`.
  ///
  /// With a ``RetryBudget`` in the context (``OperationContext/operationRetryBudget``), each run
  /// counts as a first attempt of the budget's scope and each retry asks the budget first; a
  /// refused retry fails the run at once with the last error. The wait before a retry is
  /// `operationBackoffFunction(n, after: error)`, so a backoff function can read the failure
  /// (see ``OperationBackoffFunction/honoringRetryAfter(atMost:)``).
  ///
  /// Cancellation: the loop does not check for cancellation itself. A cooperative operation fails
  /// fast on each attempt while the delays are skipped, and the final `CancellationError` is
  /// thrown; an operation that ignores cancellation still succeeds.
  ///
  /// - Parameter limit: The number of retries.
  /// - Returns: The modified operation.
  public func retry(limit: Int) -> ModifiedOperation<Self, _RetryModifier<Self>> {
    self.modifier(_RetryModifier(limit: limit, shouldRetry: { _, _ in true }))
  }

  /// Retries the operation when it fails and a predicate agrees, waiting by the context's backoff
  /// function between attempts.
  ///
  /// This is ``retry(limit:)`` with a retry strategy: after each failed attempt that may still be
  /// retried, the modifier calls `shouldRetry` with the number of failures so far (1 after the
  /// first attempt) and the attempt's error. Returning `false` ends the run at once with that
  /// error, without waiting. The predicate is not called after the last allowed attempt.
  ///
  /// ```swift
  /// let request = UploadPhoto(photo)
  ///   .retry(limit: 5) { failureCount, error in
  ///     !(error is CancellationError) && !(error is ValidationError)
  ///   }
  /// ```
  ///
  /// The predicate belongs to this modifier. As with ``retry(limit:)``, only the innermost retry
  /// acts, with its own predicate: an outer retry's predicate is never called, and an inner
  /// ``retry(limit:)`` without a predicate retries every failure. The context's
  /// ``OperationContext/operationMaxRetries`` still overrides `limit` at run time.
  ///
  /// Cancellation: the predicate also sees the `CancellationError` of a cancelled attempt;
  /// return `false` for it to stop retrying a cancelled run at once.
  ///
  /// - Parameters:
  ///   - limit: The largest number of retries.
  ///   - shouldRetry: Whether to retry after `failureCount` failures, the last with `error`.
  /// - Returns: The modified operation.
  public func retry(
    limit: Int,
    shouldRetry: @escaping @Sendable (_ failureCount: Int, _ error: Failure) -> Bool
  ) -> ModifiedOperation<Self, _RetryModifier<Self>> {
    self.modifier(_RetryModifier(limit: limit, shouldRetry: shouldRetry))
  }
}

/// The modifier behind ``OperationRequest/retry(limit:)`` and
/// ``OperationRequest/retry(limit:shouldRetry:)``.
public struct _RetryModifier<Operation: OperationRequest>: OperationModifier, Sendable {
  let limit: Int
  let shouldRetry: @Sendable (Int, Operation.Failure) -> Bool
  private let identity = nextRetryIdentity.add(1, ordering: .relaxed).newValue

  init(limit: Int, shouldRetry: @escaping @Sendable (Int, Operation.Failure) -> Bool) {
    self.limit = limit
    self.shouldRetry = shouldRetry
  }

  /// Writes the retry limit to the context and claims the retries for this modifier, then sets up
  /// the operation.
  public func setup(context: inout OperationContext, using operation: Operation) {
    // NB: Setup runs from the outermost modifier inward, so the innermost retry writes last and
    // claims the run.
    context.operationMaxRetries = self.limit
    context.retryIdentity = self.identity
    operation.setup(context: &context)
  }

  /// Runs the operation, retrying failures when this is the innermost retry modifier.
  ///
  /// An outer retry modifier runs the operation once and leaves the retries to the inner one.
  /// A failure that the predicate declines to retry is thrown at once.
  // NB: Inlined into its protocol witness. A store runs its chain of modifiers unspecialized,
  // through witnesses, and each function on the way is one more frame from the task's allocator.
  @inline(__always)
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws(Operation.Failure) -> Operation.Value {
    guard context.retryIdentity == self.identity else {
      return try await operation.run(isolation: isolation, in: context, with: continuation)
    }
    // NB: The first attempt is all that most runs make, and the retries are a function of their
    // own: every value an asynchronous function touches takes room in its frame, which each run
    // allocates from its task's allocator. With the retries inline, the frame took 656 bytes.
    let plan = Self.plan(for: context)
    do throws(Operation.Failure) {
      return try await Self.run(
        attempt: 1,
        of: operation,
        observed: plan.observesAttempts,
        isolation: isolation,
        in: context,
        with: continuation
      )
    } catch {
      return try await self.retry(
        after: error,
        plan,
        of: operation,
        isolation: isolation,
        in: context,
        with: continuation
      )
    }
  }

  /// How a run retries: read once from its context, when the first attempt starts.
  private struct RetryPlan {
    let maxRetries: Int
    let budget: RetryBudget?
    /// Whether each attempt is work that the context's instruments observe.
    let observesAttempts: Bool
  }

  @inline(never)
  private static func plan(for context: OperationContext) -> RetryPlan {
    let maxRetries = max(context.operationMaxRetries, 0)
    let budget = context.operationRetryBudget
    budget?.recordFirstAttempt(at: context.operationClock.now())
    // NB: Each attempt of a run that may retry is work that instruments observe. Without
    // instruments (most stores), an attempt is the operation's call itself, with no
    // `Result<Value, Failure>`: this code is not specialized, and each use of that type asked
    // the runtime for its metadata.
    return RetryPlan(
      maxRetries: maxRetries,
      budget: budget,
      observesAttempts: maxRetries > 0 && !context.operationInstruments.isEmpty
    )
  }

  /// Retries a run whose first attempt failed with `firstError`, while the plan and the
  /// modifier's predicate allow, waiting the backoff before each retry.
  @inline(never)
  private func retry(
    after firstError: Operation.Failure,
    _ plan: RetryPlan,
    of operation: Operation,
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws(Operation.Failure) -> Operation.Value {
    var context = context
    var error = firstError
    var index = 0
    while true {
      guard index < plan.maxRetries, self.shouldRetry(index + 1, error) else { throw error }
      if let budget = plan.budget, !budget.tryRetry(at: context.operationClock.now()) {
        context.record(.retryRefusedByBudget(budget: budget.name))
        throw error
      }
      context.record(.retried(attempt: index + 1))
      try? await context.operationDelayer.delay(
        for: context.operationBackoffFunction(index + 1, after: error)
      )
      context.operationRetryIndex = index
      index += 1
      do throws(Operation.Failure) {
        return try await Self.run(
          attempt: index + 1,
          of: operation,
          observed: plan.observesAttempts,
          isolation: isolation,
          in: context,
          with: continuation
        )
      } catch let failure {
        error = failure
      }
    }
  }

  /// Runs attempt `number` of `operation`, as work that the context's instruments observe when
  /// `observed`.
  // NB: Inlined, so that an attempt is no asynchronous frame more.
  @inline(__always)
  private static func run(
    attempt number: Int,
    of operation: Operation,
    observed: Bool,
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws(Operation.Failure) -> Operation.Value {
    observed
      ? try await Self.observedAttempt(
        number,
        of: operation,
        isolation: isolation,
        in: context,
        with: continuation
      )
      : try await operation.run(isolation: isolation, in: context, with: continuation)
  }

  /// Runs attempt `number` of `operation` as work that the context's instruments observe.
  // NB: A function of its own, so that the `Result<Value, Failure>` that instruments need is
  // looked up only when there are instruments.
  private static func observedAttempt(
    _ number: Int,
    of operation: Operation,
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws(Operation.Failure) -> Operation.Value {
    try await context.performWork(.attempt(number)) {
      await Self.attempt(operation, isolation: isolation, in: context, with: continuation)
    }
    .get()
  }

  private static func attempt(
    _ operation: Operation,
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async -> Result<Operation.Value, Operation.Failure> {
    do throws(Operation.Failure) {
      return .success(
        try await operation.run(isolation: isolation, in: context, with: continuation)
      )
    } catch {
      return .failure(error)
    }
  }
}

extension OperationContext {
  /// How many times a `retry` modifier retries; read at run time.
  public var operationMaxRetries: Int {
    get { self[MaxRetriesKey.self] }
    set { self[MaxRetriesKey.self] = newValue }
  }

  /// The index of the current retry: `nil` on the first attempt, then 0, 1, …
  public var operationRetryIndex: Int? {
    get { self[RetryIndexKey.self] }
    set { self[RetryIndexKey.self] = newValue }
  }

  /// Whether this is the first attempt of a run.
  public var isFirstRunAttempt: Bool {
    self.operationRetryIndex == nil
  }

  /// Whether this is the first retry.
  public var isFirstRetryAttempt: Bool {
    self.operationRetryIndex == 0
  }

  /// Whether this is the last retry.
  public var isLastRetryAttempt: Bool {
    self.operationRetryIndex == self.operationMaxRetries - 1
  }

  /// Whether no attempt follows this one.
  public var isLastRunAttempt: Bool {
    self.isLastRetryAttempt || self.operationMaxRetries == 0
  }

  fileprivate var retryIdentity: Int? {
    get { self[RetryIdentityKey.self] }
    set { self[RetryIdentityKey.self] = newValue }
  }

  private enum MaxRetriesKey: Key {
    static let defaultValue = 0
  }

  private enum RetryIndexKey: Key {
    static let defaultValue: Int? = nil
  }

  private enum RetryIdentityKey: Key {
    static let defaultValue: Int? = nil
  }
}

private let nextRetryIdentity = Atomic<Int>(0)

/// A `retry` modifier, whatever the operation it wraps, for ``ModifierChain``.
package protocol RetryingModifier {}

extension _RetryModifier: RetryingModifier {}
