import OperationSynchronization

#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// A limit on how many retries a scope may add to its first attempts, so that retries cannot
/// multiply the load on a service that is already failing.
///
/// With a budget of 20%, 1,000 runs whose every attempt fails send at most 1,000 first attempts
/// and 200 retries (plus the floor), where `retry(limit: 3)` alone would send 4,000 requests. This
/// is the retry throttling of gRPC and the retry budget of Finagle:
///
/// - Every first attempt of a run deposits `ratio` of a retry; every retry withdraws one.
/// - A floor of `minimumPerSecond` retries per second of the window is always there, so that a
///   scope with little traffic can still retry.
/// - Deposits and withdrawals count for `window`, then expire.
///
/// A retry that the budget refuses does not wait: the run fails at once with its last error, and
/// instruments see ``OperationInstrumentEvent/retryRefusedByBudget(budget:)``.
///
/// The scope is whatever shares the budget. One budget in a client's default context covers every
/// store of the client; one per host covers what calls that host:
///
/// ```swift
/// let budget = RetryBudget(name: "billing", ratio: 0.2, minimumPerSecond: 10)
/// let store = client.store(for: Invoice(id: 7).retry(limit: 3).retryBudget(budget))
///
/// var context = OperationContext()
/// context.operationRetryBudget = RetryBudget(name: "everything")
/// let budgeted = OperationClient(defaultContext: context)
/// ```
///
/// The budget reads time from the run's ``OperationContext/operationClock``.
public final class RetryBudget: Sendable {
  /// What a budget has counted in its window, for instruments and dashboards.
  public struct Snapshot: Hashable, Sendable, Codable {
    /// The budget's name.
    public var name: String
    /// The first attempts in the window.
    public var firstAttempts: Int
    /// The retries in the window.
    public var retries: Int
    /// The retries the window still allows.
    public var available: Int
    /// The retries refused since the budget was created.
    public var refused: Int
  }

  /// The budget's name, in events, snapshots and metrics.
  public let name: String
  /// The share of first attempts that may be retried, such as `0.2` for 20%.
  public let ratio: Double
  /// The retries per second that are always allowed.
  public let minimumPerSecond: Int
  /// How long a deposit or a withdrawal counts, in whole seconds.
  public let window: OperationDuration

  private struct State {
    /// First attempts (`first`) and retries (`second`) per second of the window.
    var counts: WindowCounts
    var refused = 0
  }

  private let state: Lock<State>

  /// Creates a budget.
  ///
  /// - Parameters:
  ///   - name: The budget's name, in events, snapshots and metrics.
  ///   - ratio: The share of first attempts that may be retried (`0.2` for 20%); at least zero.
  ///     A number: `.nan` stops the program. `.infinity` allows every retry.
  ///   - minimumPerSecond: The retries per second that are always allowed; at least zero.
  ///   - window: How long deposits and withdrawals count; rounded up to whole seconds, from one
  ///     second to one hour (a longer window stops the program: the budget keeps a count per
  ///     second of it).
  public init(
    name: String = "retry-budget",
    ratio: Double = 0.2,
    minimumPerSecond: Int = 10,
    window: OperationDuration = .seconds(10)
  ) {
    precondition(!ratio.isNaN, "The retry budget \"\(name)\" has a ratio that is not a number.")
    self.name = name
    self.ratio = max(ratio, 0)
    self.minimumPerSecond = max(minimumPerSecond, 0)
    let counts = WindowCounts(window: window)
    self.window = .seconds(counts.seconds)
    self.state = Lock(State(counts: counts))
  }

  /// Counts a first attempt, which deposits `ratio` of a retry.
  ///
  /// - Parameter now: The moment of the attempt.
  public func recordFirstAttempt(at now: Date) {
    self.state.withLock { $0.counts.add(first: 1, at: now) }
  }

  /// Withdraws a retry when the window allows one.
  ///
  /// - Parameter now: The moment of the retry.
  /// - Returns: Whether the retry may go ahead; `false` counts as refused.
  public func tryRetry(at now: Date) -> Bool {
    self.state.withLock { state in
      let (firstAttempts, retries) = state.counts.totals(at: now)
      guard retries < self.allowance(forFirstAttempts: firstAttempts, in: state) else {
        state.refused += 1
        return false
      }
      state.counts.add(second: 1, at: now)
      return true
    }
  }

  /// What the budget counts in the window that ends at `now`.
  ///
  /// - Parameter now: The end of the window.
  /// - Returns: The snapshot.
  public func snapshot(at now: Date) -> Snapshot {
    self.state.withLock { state in
      let (firstAttempts, retries) = state.counts.totals(at: now)
      return Snapshot(
        name: self.name,
        firstAttempts: firstAttempts,
        retries: retries,
        available: max(0, self.allowance(forFirstAttempts: firstAttempts, in: state) - retries),
        refused: state.refused
      )
    }
  }

  private func allowance(forFirstAttempts firstAttempts: Int, in state: State) -> Int {
    // NB: Counted in `Double`, so that a large ratio or floor saturates instead of overflowing;
    // the small addition keeps products such as 0.2 × 1,000 from rounding down to 199.
    let allowance =
      self.ratio * Double(firstAttempts) + Double(self.minimumPerSecond)
      * Double(state.counts.seconds) + 1e-9
    return allowance < Double(Int.max) ? Int(allowance) : Int.max
  }
}

extension OperationContext {
  /// The retry budget that `retry(limit:)` asks before each retry, and tells of each first
  /// attempt; `nil` (the default) for no budget.
  ///
  /// Set it on a client's default context to give every store of the client one budget, or on
  /// one operation with ``OperationRequest/retryBudget(_:)``.
  public var operationRetryBudget: RetryBudget? {
    get { self[RetryBudgetKey.self] }
    set { self[RetryBudgetKey.self] = newValue }
  }

  private enum RetryBudgetKey: Key {
    static let defaultValue: RetryBudget? = nil
  }
}

extension OperationRequest {
  /// Makes `retry(limit:)` ask `budget` before each retry of this operation.
  ///
  /// ```swift
  /// let budget = RetryBudget(name: "search", ratio: 0.2)
  /// let request = Search(text: "swift").retry(limit: 3).retryBudget(budget)
  /// ```
  ///
  /// Operations that share a budget share its scope. The modifier writes
  /// ``OperationContext/operationRetryBudget``, so its place among the modifiers does not matter.
  ///
  /// - Parameter budget: The budget.
  /// - Returns: The modified operation.
  public func retryBudget(
    _ budget: RetryBudget
  ) -> ModifiedOperation<Self, _RetryBudgetModifier<Self>> {
    self.modifier(_RetryBudgetModifier(budget: budget))
  }
}

/// The modifier behind ``OperationRequest/retryBudget(_:)``.
public struct _RetryBudgetModifier<Operation: OperationRequest>: _ContextUpdatingOperationModifier {
  let budget: RetryBudget

  /// Writes the budget to ``OperationContext/operationRetryBudget``.
  public func setup(context: inout OperationContext) {
    context.operationRetryBudget = self.budget
  }
}
