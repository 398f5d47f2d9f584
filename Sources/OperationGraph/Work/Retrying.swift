public import OperationCore

extension OperationRequest {
  /// Runs the request again after a failure while a retry strategy agrees, waiting between
  /// attempts by a wait strategy.
  ///
  /// After each failed attempt the modifier asks `strategy` with the number of failures so far
  /// (1 after the first) and the attempt's error. If it agrees, the modifier waits
  /// `wait(failureCount)` on the context's ``OperationContext/operationDelayer`` (no wait for zero
  /// or less) and runs the request again; otherwise it throws that attempt's error. A success ends
  /// the run at once.
  ///
  /// ```swift
  /// let request = UploadPhoto(photo)
  ///   .retrying(.repeat(times: 3), waiting: .exponential(.seconds(1), max: .seconds(20)))
  /// ```
  ///
  /// **Errors of earlier attempts.** The run keeps the request's `Failure` type, so a retried query
  /// is still a query that a store can hold: it returns the successful attempt's value or throws
  /// the *last* attempt's error. The earlier errors are not thrown; `onFailedAttempt` receives
  /// every failed attempt as a ``RetryAttempt`` (its number, its error and the wait that followed
  /// it, `nil` for the attempt that ended the run), which is the attempt log. A request that fails
  /// 4 times and then succeeds returns its value, and the log holds the 4 errors.
  ///
  /// **Other retry modifiers.** This is the core's ``OperationRequest/retry(limit:shouldRetry:)``
  /// with a strategy that need not be bounded, its own waits instead of the context's
  /// ``OperationContext/operationBackoffFunction``, and an attempt log. The core's retry reads its
  /// limit from ``OperationContext/operationMaxRetries`` at run time, so a store's context (or the
  /// client's default `retry(limit:)`) would decide how often a strategy's request runs; this
  /// modifier decides that alone. To keep the core's rule that only the innermost retry acts, its
  /// setup writes `operationMaxRetries = 0`: a core `retry` *outside* it, such as the client's
  /// default, runs it once. A core `retry` *inside* it retries each of its attempts.
  ///
  /// Inside the modifier, ``OperationContext/operationRetryIndex`` is `nil` on the first attempt,
  /// then 0, 1, …, so ``OperationContext/isFirstRunAttempt`` works; the core's "last attempt"
  /// properties do not, because a strategy decides only after an attempt fails.
  ///
  /// **Cancellation.** A failed attempt of a cancelled task is never retried: its error is thrown
  /// without asking the strategy. A wait that the cancellation interrupts ends the run with the
  /// latest error. An attempt that ignores cancellation and succeeds still succeeds.
  ///
  /// - Parameters:
  ///   - strategy: Whether to retry after a failure.
  ///   - wait: How long to wait before each retry; no wait by default.
  ///   - onFailedAttempt: Receives every failed attempt, in order, before its wait.
  /// - Returns: The modified request.
  public func retrying(
    _ strategy: RetryStrategy<Failure>,
    waiting wait: WaitStrategy = .none,
    onFailedAttempt: @escaping @Sendable (RetryAttempt<Failure>) -> Void = { _ in }
  ) -> ModifiedOperation<Self, _RetryingModifier<Self>> {
    self.modifier(
      _RetryingModifier(policy: .strategy(strategy, wait), onFailedAttempt: onFailedAttempt)
    )
  }

  /// Runs the request again after a failure as a handler decides, possibly with another request
  /// of the same type.
  ///
  /// After each failed attempt the modifier calls `decide` with a ``RetryFailure``: the request
  /// that failed, its error, the failure count (1 after the first failure) and the earlier failed
  /// attempts. The handler returns a ``RetryDecision``:
  ///
  /// - ``RetryDecision/stop`` throws the error;
  /// - ``RetryDecision/retry`` and ``RetryDecision/retry(after:)`` run the same request again,
  ///   after the given wait on the context's ``OperationContext/operationDelayer``;
  /// - ``RetryDecision/retry(with:after:)`` runs another request of the same type, for example
  ///   with a smaller page size or a refreshed token. Later failures report that request.
  ///
  /// This is the handler of danthorpe/Operations' `RetryOperation`, which could change the next
  /// attempt's payload or stop. The handler alone bounds the retries:
  ///
  /// ```swift
  /// let request = Download(url: url, quality: .high)
  ///   .retrying { failure in
  ///     guard failure.failureCount < 3 else { return .stop }
  ///     return .retry(with: Download(url: url, quality: .low), after: .seconds(1))
  ///   }
  /// ```
  ///
  /// A replacement request runs in the context that was prepared for the original one: its
  /// `setup(context:)` is not called. Errors, retry modifiers and cancellation work as in
  /// ``retrying(_:waiting:onFailedAttempt:)``: a cancelled task's failure is thrown without
  /// calling the handler.
  ///
  /// - Parameters:
  ///   - onFailedAttempt: Receives every failed attempt, in order, before its wait.
  ///   - decide: Decides what follows a failed attempt.
  /// - Returns: The modified request.
  /// - Complexity: The run keeps every failed attempt for ``RetryFailure/previousAttempts``, so its
  ///   memory grows by one small value per retry. The strategy form keeps none.
  public func retrying(
    onFailedAttempt: @escaping @Sendable (RetryAttempt<Failure>) -> Void = { _ in },
    _ decide: @escaping @Sendable (RetryFailure<Self>) -> RetryDecision<Self>
  ) -> ModifiedOperation<Self, _RetryingModifier<Self>> {
    self.modifier(_RetryingModifier(policy: .handler(decide), onFailedAttempt: onFailedAttempt))
  }
}

// MARK: - RetryAttempt

/// One failed attempt of a retried request: an entry of the attempt log.
///
/// ``OperationRequest/retrying(_:waiting:onFailedAttempt:)`` reports one entry per failed
/// attempt, and ``RetryFailure/previousAttempts`` lists the earlier ones.
public struct RetryAttempt<Failure: Error>: Sendable {
  /// Which attempt failed: 1 for the first run, 2 for the first retry, and so on.
  public let number: Int

  /// The attempt's error.
  public let error: Failure

  /// The wait chosen before the next attempt, or `nil` when the run chose to end with this error.
  ///
  /// A wait that cancellation interrupts ends the run too, so the last entry of a cancelled run
  /// may have a wait.
  public let wait: OperationDuration?

  /// Creates a log entry.
  ///
  /// - Parameters:
  ///   - number: Which attempt failed, from 1.
  ///   - error: The attempt's error.
  ///   - wait: The wait before the next attempt, or `nil` when none followed.
  public init(number: Int, error: Failure, wait: OperationDuration?) {
    self.number = number
    self.error = error
    self.wait = wait
  }

  /// Whether the run chose to retry after this attempt.
  public var wasRetried: Bool {
    self.wait != nil
  }
}

extension RetryAttempt: Equatable where Failure: Equatable {}
extension RetryAttempt: Hashable where Failure: Hashable {}

// MARK: - RetryFailure

/// What a retry handler knows about a failed attempt.
///
/// It is the counterpart of danthorpe/Operations' `RetryFailureInfo`: ``errors`` is that type's
/// aggregate list of every error of the run so far.
public struct RetryFailure<Request: OperationRequest> {
  /// The request that ran the failed attempt: the original one, or the latest replacement.
  public let request: Request

  /// The failed attempt's error.
  public let error: Request.Failure

  /// The number of failures so far, this one included: 1 after the first.
  public let failureCount: Int

  /// The earlier failed attempts, oldest first, each with the wait that followed it.
  public let previousAttempts: [RetryAttempt<Request.Failure>]

  /// Creates what a handler knows about a failed attempt, for example to test a handler.
  ///
  /// - Parameters:
  ///   - request: The request that ran the failed attempt.
  ///   - error: The failed attempt's error.
  ///   - failureCount: The number of failures so far, this one included.
  ///   - previousAttempts: The earlier failed attempts, oldest first.
  public init(
    request: Request,
    error: Request.Failure,
    failureCount: Int,
    previousAttempts: [RetryAttempt<Request.Failure>]
  ) {
    self.request = request
    self.error = error
    self.failureCount = failureCount
    self.previousAttempts = previousAttempts
  }

  /// Every error of the run so far, oldest first, this attempt's last.
  ///
  /// - Complexity: O(*n*) for *n* failures.
  public var errors: [Request.Failure] {
    self.previousAttempts.map(\.error) + [self.error]
  }
}

extension RetryFailure: Sendable where Request: Sendable {}

// MARK: - RetryDecision

/// What follows a failed attempt: a retry, possibly of another request, or the end of the run.
///
/// A handler passed to ``OperationRequest/retrying(onFailedAttempt:_:)`` returns one.
public struct RetryDecision<Request: OperationRequest> {
  enum Kind {
    case stop
    case retry(wait: OperationDuration, replacement: Request?)
  }

  let kind: Kind

  /// The wait before the retry, or `nil` for a decision to stop.
  public var wait: OperationDuration? {
    guard case .retry(let wait, _) = self.kind else { return nil }
    return wait
  }

  /// The request that the retry runs instead of the failed one, or `nil` when it runs the same
  /// request again or the decision is to stop.
  public var replacement: Request? {
    guard case .retry(_, let replacement) = self.kind else { return nil }
    return replacement
  }

  /// Ends the run with the failed attempt's error.
  public static var stop: Self {
    Self(kind: .stop)
  }

  /// Runs the same request again at once.
  public static var retry: Self {
    Self(kind: .retry(wait: .zero, replacement: nil))
  }

  /// Runs the same request again after a wait.
  ///
  /// - Parameter wait: How long to wait; zero or less runs it at once.
  /// - Returns: The decision.
  public static func retry(after wait: OperationDuration) -> Self {
    Self(kind: .retry(wait: wait, replacement: nil))
  }

  /// Runs another request of the same type after a wait.
  ///
  /// - Parameters:
  ///   - request: The request to run instead.
  ///   - wait: How long to wait; none by default.
  /// - Returns: The decision.
  public static func retry(with request: Request, after wait: OperationDuration = .zero) -> Self {
    Self(kind: .retry(wait: wait, replacement: request))
  }
}

extension RetryDecision: Sendable where Request: Sendable {}
extension RetryDecision.Kind: Sendable where Request: Sendable {}

// MARK: - Modifier

/// The modifier behind ``OperationRequest/retrying(_:waiting:onFailedAttempt:)`` and
/// ``OperationRequest/retrying(onFailedAttempt:_:)``.
public struct _RetryingModifier<Operation: OperationRequest>: OperationModifier, Sendable {
  enum Policy: Sendable {
    case strategy(RetryStrategy<Operation.Failure>, WaitStrategy)
    case handler(@Sendable (RetryFailure<Operation>) -> RetryDecision<Operation>)
  }

  let policy: Policy
  let onFailedAttempt: @Sendable (RetryAttempt<Operation.Failure>) -> Void

  /// Claims the retries, so that a core `retry` outside this modifier runs it once, then sets up
  /// the request.
  ///
  /// - Parameters:
  ///   - context: The context to prepare.
  ///   - operation: The wrapped request.
  public func setup(context: inout OperationContext, using operation: Operation) {
    // NB: Setup runs from the outermost modifier inward, so an outer core retry has written its
    // limit already and reads this 0 when it runs; an inner one writes its own limit afterwards.
    context.operationMaxRetries = 0
    operation.setup(context: &context)
  }

  /// Runs the request until it succeeds or the handler stops it.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of this run.
  ///   - operation: The wrapped request.
  ///   - continuation: Receives intermediate results of every attempt.
  /// - Returns: The value of the successful attempt.
  /// - Throws: The error of the last attempt.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws(Operation.Failure) -> Operation.Value {
    var request = operation
    var context = context
    var failureCount = 0
    // NB: Only a handler reads earlier attempts, so only a handler's run keeps them.
    var attempts = [RetryAttempt<Operation.Failure>]()
    while true {
      let error: Operation.Failure
      do throws(Operation.Failure) {
        return try await request.run(isolation: isolation, in: context, with: continuation)
      } catch let failure {
        error = failure
      }
      failureCount += 1
      let decision: RetryDecision<Operation>.Kind
      switch self.policy {
      case _ where Task.isCancelled:
        decision = .stop
      case .strategy(let strategy, let wait):
        decision =
          strategy.shouldRetry(failureCount: failureCount, error: error)
          ? .retry(wait: wait(failureCount), replacement: nil) : .stop
      case .handler(let decide):
        decision =
          decide(
            RetryFailure(
              request: request,
              error: error,
              failureCount: failureCount,
              previousAttempts: attempts
            )
          ).kind
      }
      guard case .retry(let wait, let replacement) = decision else {
        self.onFailedAttempt(RetryAttempt(number: failureCount, error: error, wait: nil))
        throw error
      }
      let attempt = RetryAttempt(number: failureCount, error: error, wait: wait)
      self.onFailedAttempt(attempt)
      if case .handler = self.policy {
        attempts.append(attempt)
      }
      if wait > .zero {
        // NB: A delayer throws only when its task is cancelled, which the check below handles.
        try? await context.operationDelayer.delay(for: wait)
        if Task.isCancelled {
          throw error
        }
      }
      if let replacement {
        request = replacement
      }
      context.operationRetryIndex = failureCount - 1
    }
  }
}
