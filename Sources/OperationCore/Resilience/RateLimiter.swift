import OperationSynchronization

#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// What a ``RateLimiter`` or a ``Bulkhead`` does with a run that finds it full.
public enum WhenFull: Hashable, Sendable {
  /// The run waits for its turn, in the order the runs arrived.
  case wait
  /// The run fails at once: ``RateLimitExceededError`` or ``BulkheadFullError``.
  case failFast
}

/// A token bucket that limits how many runs start in a scope, with a cost per run.
///
/// The bucket holds up to `capacity` tokens and gains `refill` tokens every `period`. A run
/// takes `cost` tokens when it starts (a query 1, a mutation 5, say); a run that finds too few
/// waits, in order of arrival, on the context's ``OperationContext/operationDelayer`` until the
/// bucket has refilled, or fails at once with ``RateLimitExceededError`` under
/// ``WhenFull/failFast``:
///
/// ```swift
/// let limiter = RateLimiter(name: "partner-api", capacity: 10, refill: 10, per: .seconds(1))
/// let search = Search(text: "swift").rateLimited(by: limiter)
/// let order = PlaceOrder().rateLimited(by: limiter, cost: 5)
/// ```
///
/// With a capacity of 10 and a refill of 10 a second, 100 runs that ask at once start 10 at once
/// and then one every 100 ms: the last starts 9 seconds later. The limiter keeps no queue of its
/// own: each run reserves its turn when it asks (the generic cell rate algorithm), so a run
/// costs a lock and some arithmetic, and a cancelled wait gives its tokens back. Time comes from
/// the run's ``OperationContext/operationClock``.
public final class RateLimiter: Sendable {
  /// The limiter's name, in errors, events and metrics.
  public let name: String
  /// The most tokens the bucket holds: the largest burst of starts.
  public let capacity: Int
  /// What a run that finds the bucket short does.
  public let whenFull: WhenFull

  /// The time one token takes to refill, in attoseconds.
  private let interval: Int128

  /// The largest capacity: a full bucket's time, `capacity × interval` attoseconds, then fits in
  /// an `Int128` for periods of up to a thousand years.
  static let maximumCapacity = 1 << 32

  private struct State: Sendable {
    /// The limiter's first reading of the clock; times are kept relative to it, in attoseconds,
    /// so that they stay exact.
    var origin: Date?
    /// When the bucket would be full again with every reservation so far paid: the theoretical
    /// arrival time of the generic cell rate algorithm.
    var paidUntil: Int128 = 0
  }

  private let state = Lock(State())

  /// Creates a full bucket.
  ///
  /// - Parameters:
  ///   - name: The limiter's name, in errors, events and metrics.
  ///   - capacity: The most tokens the bucket holds; at least one, at most 2³² (a larger one
  ///     stops the program).
  ///   - refill: How many tokens it gains every `period`; at least one.
  ///   - period: The time in which it gains `refill` tokens.
  ///   - whenFull: Whether a run that finds too few tokens waits (the default) or fails.
  public init(
    name: String,
    capacity: Int,
    refill: Int,
    per period: OperationDuration = .seconds(1),
    whenFull: WhenFull = .wait
  ) {
    precondition(
      capacity <= Self.maximumCapacity,
      "The rate limiter \"\(name)\" has a capacity of \(capacity); the largest is 2³²."
    )
    self.name = name
    self.capacity = max(1, capacity)
    self.whenFull = whenFull
    self.interval = max(1, period.attoseconds / Int128(max(1, refill)))
  }

  /// The tokens in the bucket at `now`, once the reservations so far are paid; negative while
  /// runs wait.
  ///
  /// - Parameter now: The moment.
  /// - Returns: The tokens, rounded down.
  public func availableTokens(at now: Date) -> Int {
    self.state.withLock { state in
      let time = Self.time(of: now, in: &state)
      let debt = max(state.paidUntil, time) - time
      return Int((Int128(self.capacity) * self.interval - debt) / self.interval)
    }
  }

  /// What a start that asks for its tokens is told.
  enum Reservation: Equatable {
    /// The tokens are reserved; the run starts after this wait (zero when the bucket had them).
    case starts(after: OperationDuration)
    /// Under ``WhenFull/failFast``, the bucket is short: nothing is reserved, and the tokens
    /// would be there after this wait.
    case refused(retryAfter: OperationDuration)
  }

  /// Reserves `cost` tokens at `now`, or refuses them under ``WhenFull/failFast``.
  func reserve(cost: Int, at now: Date) -> Reservation {
    self.state.withLock { state in
      let time = Self.time(of: now, in: &state)
      let paidUntil = max(state.paidUntil, time) + Int128(cost) * self.interval
      let startsAt = paidUntil - Int128(self.capacity) * self.interval
      let wait = OperationDuration(attoseconds: max(0, startsAt - time))
      if wait > .zero, self.whenFull == .failFast {
        return .refused(retryAfter: wait)
      }
      state.paidUntil = paidUntil
      return .starts(after: wait)
    }
  }

  /// Gives back the tokens of a run that stopped waiting.
  func refund(cost: Int) {
    self.state.withLock { state in
      state.paidUntil -= Int128(cost) * self.interval
    }
  }

  private static func time(of date: Date, in state: inout State) -> Int128 {
    let origin = state.origin ?? date
    state.origin = origin
    return OperationDuration.seconds(date.timeIntervalSince(origin)).attoseconds
  }
}

/// The error of a run that a full ``RateLimiter`` under ``WhenFull/failFast`` refused.
public struct RateLimitExceededError: RetryAfterProviding, Hashable, Sendable,
  CustomStringConvertible
{
  /// The limiter's name.
  public let limiter: String
  /// How long until the bucket has the run's tokens.
  public let retryAfter: OperationDuration?

  /// Creates the error.
  ///
  /// - Parameters:
  ///   - limiter: The limiter's name.
  ///   - retryAfter: How long until the bucket has the run's tokens.
  public init(limiter: String, retryAfter: OperationDuration?) {
    self.limiter = limiter
    self.retryAfter = retryAfter
  }

  /// A sentence such as `The rate limit "partner-api" is exceeded.`
  public var description: String {
    "The rate limit \"\(self.limiter)\" is exceeded."
  }
}

extension OperationRequest where Failure == any Error {
  /// Starts the operation only when `limiter` has `cost` tokens for it.
  ///
  /// ```swift
  /// let limiter = RateLimiter(name: "partner-api", capacity: 10, refill: 10)
  /// let request = Search(text: "swift").rateLimited(by: limiter)
  /// ```
  ///
  /// Inside `retry(limit:)` every attempt pays; outside it, a run pays once. A wait is a delay on
  /// the context's ``OperationContext/operationDelayer``, and instruments see it as
  /// ``OperationInstrumentEvent/rateLimited(limiter:wait:)``; a cancelled wait throws
  /// `CancellationError` and gives the tokens back.
  ///
  /// - Parameters:
  ///   - limiter: The limiter, shared by the operations of its scope.
  ///   - cost: The tokens a start takes; 1 by default. From zero to the limiter's capacity: a
  ///     start that costs more than a full bucket could never go under ``WhenFull/failFast``, so
  ///     a larger cost stops the program.
  /// - Returns: The modified operation.
  public func rateLimited(
    by limiter: RateLimiter,
    cost: Int = 1
  ) -> ModifiedOperation<Self, _RateLimitedModifier<Self>> {
    precondition(
      (0...limiter.capacity).contains(cost),
      "A start that costs \(cost) tokens can never fit in the rate limiter \"\(limiter.name)\", "
        + "whose capacity is \(limiter.capacity)."
    )
    return self.modifier(_RateLimitedModifier(limiter: limiter, cost: cost))
  }
}

/// The modifier behind ``OperationRequest/rateLimited(by:cost:)``.
public struct _RateLimitedModifier<Operation: OperationRequest>: OperationModifier, Sendable
where Operation.Failure == any Error {
  let limiter: RateLimiter
  let cost: Int

  /// Waits for the tokens (or fails without them), then runs the operation.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws -> Operation.Value {
    let wait: OperationDuration
    switch self.limiter.reserve(cost: self.cost, at: context.operationClock.now()) {
    case .refused(let retryAfter):
      context.record(.rejectedWhenFull(policy: self.limiter.name))
      throw RateLimitExceededError(limiter: self.limiter.name, retryAfter: retryAfter)
    case .starts(let after):
      wait = after
    }
    if wait > .zero {
      context.record(.rateLimited(limiter: self.limiter.name, wait: wait))
      do {
        try await context.operationDelayer.delay(for: wait)
        try Task.checkCancellation()
      } catch {
        self.limiter.refund(cost: self.cost)
        throw error
      }
    }
    return try await operation.run(isolation: isolation, in: context, with: continuation)
  }
}
