import OperationSynchronization

#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// Stops calling a service that keeps failing, and tries it again after a cool-down.
///
/// A breaker is closed at first, and every run starts. When failures cross its ``Threshold``
/// (a number of failures in a row, or a rate of failures in a window) it opens: every run fails
/// at once with ``CircuitBreakerOpenError``, and no request is sent. After `coolDown` the next
/// runs half-open it: `halfOpenProbes` of them start, as probes. When every probe succeeds the
/// breaker closes; when one fails it opens again for another cool-down. Probes that have not all
/// ended within a cool-down are given up, and the next run probes in their place, so a probe
/// that hangs cannot keep the breaker half-open.
///
/// ```swift
/// let breaker = CircuitBreaker(
///   name: "billing",
///   threshold: .consecutiveFailures(5),
///   coolDown: .seconds(30)
/// )
/// let store = client.store(for: Invoice(id: 7).circuitBreaker(breaker))
/// ```
///
/// The scope is whatever shares the breaker: one per host, one per path prefix, or one for a
/// client. A client lists the breakers of its stores in ``OperationClient/snapshot(matching:)``;
/// instruments see each transition (``OperationInstrumentEvent/circuitBreakerTransition(breaker:from:to:)``)
/// and each rejection, and `OperationMetrics` turns them into a gauge and counters.
///
/// Cancellations count as neither success nor failure, and `isFailure` decides which other
/// errors count: a `404 Not Found` is an answer, not an outage. The breaker reads time from the
/// run's ``OperationContext/operationClock``.
public final class CircuitBreaker: Sendable {
  /// Where a breaker stands.
  public enum State: String, Hashable, Sendable, Codable {
    /// Runs start.
    case closed
    /// Runs fail at once.
    case open
    /// A few runs start, as probes.
    case halfOpen = "half-open"
  }

  /// A change of state.
  public struct Transition: Hashable, Sendable {
    /// The state before.
    public let from: State
    /// The state after.
    public let to: State

    /// Creates a transition.
    ///
    /// - Parameters:
    ///   - from: The state before.
    ///   - to: The state after.
    public init(from: State, to: State) {
      self.from = from
      self.to = to
    }
  }

  /// When a closed breaker opens.
  public struct Threshold: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
      case consecutiveFailures(Int)
      case failureRate(Double, minimumCalls: Int, window: OperationDuration)
    }

    let kind: Kind

    /// After `count` failures in a row.
    ///
    /// - Parameter count: The failures; at least one.
    /// - Returns: The threshold.
    public static func consecutiveFailures(_ count: Int) -> Self {
      Self(kind: .consecutiveFailures(max(1, count)))
    }

    /// When at least `rate` of the calls of the last `window` failed, once the window holds at
    /// least `minimumCalls` calls.
    ///
    /// - Parameters:
    ///   - rate: The share of failures, such as `0.5`.
    ///   - minimumCalls: The calls the window needs before it counts.
    ///   - window: How far back calls count, in whole seconds; at most an hour (a longer window
    ///     stops the program: the breaker keeps a count per second of it).
    /// - Returns: The threshold.
    public static func failureRate(
      _ rate: Double,
      minimumCalls: Int = 10,
      window: OperationDuration = .seconds(10)
    ) -> Self {
      Self(
        kind: .failureRate(min(max(rate, 0), 1), minimumCalls: max(1, minimumCalls), window: window)
      )
    }
  }

  /// A breaker at one moment, in ``OperationClientSnapshot/circuitBreakers``.
  public struct Snapshot: Hashable, Sendable, Codable {
    /// The breaker's name.
    public var name: String
    /// Its state.
    public var state: State
    /// How many times it opened since it was created.
    public var openings: Int
    /// How many runs it rejected since it was created.
    public var rejections: Int
  }

  private struct Storage: Sendable {
    var machine: CircuitBreakerStateMachine
    var openings = 0
    var rejections = 0
  }

  /// The breaker's name, in errors, snapshots, events and metrics.
  public let name: String
  private let isFailure: @Sendable (any Error) -> Bool
  private let storage: Lock<Storage>

  /// Creates a closed breaker.
  ///
  /// - Parameters:
  ///   - name: The breaker's name, in errors, snapshots, events and metrics.
  ///   - threshold: When it opens; five failures in a row by default.
  ///   - coolDown: How long it stays open before it lets probes through.
  ///   - halfOpenProbes: How many runs a half-open breaker lets through, all of which must
  ///     succeed for it to close; at least one.
  ///   - isFailure: Which errors count as failures; every error by default. Cancellations never
  ///     count.
  public init(
    name: String,
    threshold: Threshold = .consecutiveFailures(5),
    coolDown: OperationDuration = .seconds(30),
    halfOpenProbes: Int = 1,
    isFailure: @escaping @Sendable (any Error) -> Bool = { _ in true }
  ) {
    self.name = name
    self.isFailure = isFailure
    let configuration = CircuitBreakerStateMachine.Configuration(
      threshold: threshold,
      coolDown: coolDown,
      probes: max(1, halfOpenProbes)
    )
    self.storage = Lock(Storage(machine: CircuitBreakerStateMachine(configuration: configuration)))
  }

  /// The breaker's state at `now`: an open breaker whose cool-down has passed is half-open.
  ///
  /// - Parameter now: The moment, read from the clock of the runs that the breaker guards (for
  ///   example `context.operationClock.now()`), so that the state follows the time they see.
  /// - Returns: The state.
  public func state(at now: Date) -> State {
    self.storage.withLock { $0.machine.state(at: now) }
  }

  /// The breaker at `now`.
  ///
  /// - Parameter now: The moment, read from the clock of the runs that the breaker guards.
  /// - Returns: The snapshot.
  public func snapshot(at now: Date) -> Snapshot {
    self.storage.withLock { storage in
      Snapshot(
        name: self.name,
        state: storage.machine.state(at: now),
        openings: storage.openings,
        rejections: storage.rejections
      )
    }
  }

  func admit(at now: Date) -> (CircuitBreakerStateMachine.Admission, Transition?) {
    self.storage.withLock { storage in
      let (admission, transition) = storage.machine.admit(at: now)
      if case .rejected = admission {
        storage.rejections += 1
      }
      return (admission, transition)
    }
  }

  func end(
    _ ticket: CircuitBreakerStateMachine.Ticket,
    with result: Result<Void, any Error>,
    at now: Date
  ) -> Transition? {
    // NB: The predicate is the app's code, so it runs before the lock is taken.
    let outcome: CircuitBreakerStateMachine.Outcome =
      switch result {
      case .success: .success
      case .failure(let error) where error is CancellationError: .ignored
      case .failure(let error): self.isFailure(error) ? .failure : .success
      }
    return self.storage.withLock { storage in
      let transition = storage.machine.end(ticket, with: outcome, at: now)
      if transition?.to == .open {
        storage.openings += 1
      }
      return transition
    }
  }
}

/// The error of a run that an open ``CircuitBreaker`` refused: no request was sent.
///
/// It says when the breaker may let a probe through (``retryAfter``), so a backoff that
/// honours `Retry-After` (``OperationBackoffFunction/honoringRetryAfter(atMost:)``) waits for the
/// cool-down instead of spending its retries on an open breaker.
public struct CircuitBreakerOpenError: RetryAfterProviding, Hashable, Sendable,
  CustomStringConvertible
{
  /// The breaker's name.
  public let breaker: String
  /// How long until the breaker lets a probe through; `nil` when it is half-open and its probes
  /// are out, so that the backoff's own curve decides.
  public let retryAfter: OperationDuration?

  /// Creates the error.
  ///
  /// - Parameters:
  ///   - breaker: The breaker's name.
  ///   - retryAfter: How long until the breaker lets a probe through.
  public init(breaker: String, retryAfter: OperationDuration?) {
    self.breaker = breaker
    self.retryAfter = retryAfter
  }

  /// A sentence such as `The circuit breaker "billing" is open.`
  public var description: String {
    "The circuit breaker \"\(self.breaker)\" is open."
  }
}

// MARK: - Modifier

extension OperationRequest where Failure == any Error {
  /// Runs the operation through `breaker`: while it is open, runs fail at once with
  /// ``CircuitBreakerOpenError`` and the operation is not called.
  ///
  /// ```swift
  /// let breaker = CircuitBreaker(name: "billing", coolDown: .seconds(30))
  /// let request = Invoice(id: 7).circuitBreaker(breaker).retry(limit: 3)
  /// ```
  ///
  /// Inside `retry(limit:)`, as above, every attempt goes through the breaker; outside it, a run
  /// and all its retries count once. A store created by a client adds the breaker to the client's
  /// ``OperationClient/snapshot(matching:)``.
  ///
  /// - Parameter breaker: The breaker, shared by the operations of its scope.
  /// - Returns: The modified operation.
  public func circuitBreaker(
    _ breaker: CircuitBreaker
  ) -> ModifiedOperation<Self, _CircuitBreakerModifier<Self>> {
    self.modifier(_CircuitBreakerModifier(breaker: breaker))
  }
}

/// The modifier behind ``OperationRequest/circuitBreaker(_:)``.
public struct _CircuitBreakerModifier<Operation: OperationRequest>: OperationModifier, Sendable
where Operation.Failure == any Error {
  let breaker: CircuitBreaker

  /// Adds the breaker to the client's snapshot, then sets the operation up.
  public func setup(context: inout OperationContext, using operation: Operation) {
    context.operationClient?.register(self.breaker)
    operation.setup(context: &context)
  }

  /// Asks the breaker, runs the operation when it may, and tells the breaker how it ended.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws -> Operation.Value {
    let (admission, opening) = self.breaker.admit(at: context.operationClock.now())
    self.report(opening, in: context)
    switch admission {
    case .rejected(let retryAfter):
      context.record(.rejectedByCircuitBreaker(breaker: self.breaker.name))
      throw CircuitBreakerOpenError(breaker: self.breaker.name, retryAfter: retryAfter)
    case .admitted(let ticket):
      do {
        let value = try await operation.run(isolation: isolation, in: context, with: continuation)
        let transition = self.breaker.end(
          ticket,
          with: .success(()),
          at: context.operationClock.now()
        )
        self.report(transition, in: context)
        return value
      } catch {
        let transition = self.breaker.end(
          ticket,
          with: .failure(error),
          at: context.operationClock.now()
        )
        self.report(transition, in: context)
        throw error
      }
    }
  }

  private func report(_ transition: CircuitBreaker.Transition?, in context: OperationContext) {
    guard let transition else { return }
    context.record(
      .circuitBreakerTransition(
        breaker: self.breaker.name,
        from: transition.from,
        to: transition.to
      )
    )
  }
}

// MARK: - Client

extension OperationClient {
  /// Adds a breaker to the client's snapshot; a breaker added twice is listed once.
  ///
  /// Stores created by the client add the breakers of their `circuitBreaker(_:)` modifiers; call
  /// this for a breaker that the client's stores do not use.
  ///
  /// - Parameter breaker: The breaker.
  public func register(_ breaker: CircuitBreaker) {
    self.lock.withLock { storage in
      if !storage.circuitBreakers.contains(where: { $0 === breaker }) {
        storage.circuitBreakers.append(breaker)
      }
    }
  }

  /// The breakers of the client's snapshot, in the order they were added.
  public var circuitBreakers: [CircuitBreaker] {
    self.lock.withLock { $0.circuitBreakers }
  }
}
