import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

// MARK: - Instruments

/// Receives what stores and modifiers do, for metrics and tracing.
///
/// Add instruments to a client's ``OperationClient/defaultContext`` to watch every store it
/// creates, or to one operation with ``OperationRequest/instrumented(with:)``:
///
/// ```swift
/// var context = OperationContext()
/// context.operationInstruments.append(MyInstrument())
/// let client = OperationClient(defaultContext: context)
/// ```
///
/// An instrument hears of two kinds of things:
///
/// - **Work**, which has a start and an end: a store's run, each attempt of a `retry(limit:)`
///   modifier that may retry, and each page that a paginated request fetches. Work nests: the
///   attempts of a run and the pages of an attempt happen inside it, and an instrument's
///   ``OperationWorkObservation/perform(_:)`` wraps the work it observes, so a tracer can make
///   its span the current one for the code that runs inside.
/// - **Events**, which happen at one moment: a retry, a join of a run in flight, a timeout, an
///   eviction, a failed write of a persisted value.
///
/// The callbacks run on the thread of the work they describe, with no lock of the library held;
/// keep them quick. Without instruments, a run pays for one atomic load.
public protocol OperationInstrument: Sendable {
  /// A piece of work starts; the returned observation wraps it and hears how it ends.
  ///
  /// - Parameter work: The work.
  /// - Returns: What observes the work, or `nil` to ignore it.
  func started(_ work: OperationWork) -> (any OperationWorkObservation)?

  /// Something happened to a run or a store: a retry, a join of a run in flight, a timeout, an
  /// eviction.
  ///
  /// - Parameters:
  ///   - event: What happened.
  ///   - run: The run it happened in, or the store's own context and path for an eviction.
  func record(_ event: OperationInstrumentEvent, in run: OperationRunInfo)
}

/// What an ``OperationInstrument`` knows of the run that work or an event belongs to.
public struct OperationRunInfo: Sendable {
  /// The store's path; empty for an operation run outside a store.
  public let path: OperationPath

  /// The name of the operation's type without its modifiers, such as `PostQuery`; `nil` when the
  /// store had no instruments when it was created, or outside a store.
  public let operationTypeName: String?

  /// The path's description, built once per store.
  public let pathDescription: String

  /// The run's context (the store's context for an eviction).
  public let context: OperationContext

  /// Creates the description of a run.
  ///
  /// - Parameters:
  ///   - path: The store's path.
  ///   - operationTypeName: The name of the operation's type.
  ///   - pathDescription: The path's description; `path.description` by default.
  ///   - context: The run's context.
  public init(
    path: OperationPath,
    operationTypeName: String?,
    pathDescription: String? = nil,
    context: OperationContext
  ) {
    self.path = path
    self.operationTypeName = operationTypeName
    self.pathDescription = pathDescription ?? path.description
    self.context = context
  }

  init(_ path: OperationPath, _ instrumentation: StoreInstrumentation?, context: OperationContext) {
    self.init(
      path: path,
      operationTypeName: instrumentation?.operationTypeName,
      pathDescription: instrumentation?.pathDescription,
      context: context
    )
  }
}

/// A piece of work that an ``OperationInstrument`` can observe from start to end.
public struct OperationWork: Sendable {
  /// What the work is.
  public enum Kind: Hashable, Sendable {
    /// A store's run, from its start to its final result.
    case run
    /// One attempt of a run whose `retry(limit:)` modifier may retry; the first is 1.
    case attempt(Int)
    /// The fetch of one page by a paginated request; the associated value describes its id.
    case page(String)
  }

  /// What the work is.
  public let kind: Kind

  /// The run the work belongs to.
  public let run: OperationRunInfo
}

/// Observes one piece of work: it wraps the work and hears how it ends.
public protocol OperationWorkObservation: Sendable {
  /// Performs the work; a tracer binds its span's context here.
  ///
  /// The default implementation calls `body`. An implementation must call `body` exactly once
  /// and return its result.
  ///
  /// - Parameter body: The work.
  /// - Returns: What `body` returns.
  func perform<Result>(_ body: () async -> Result) async -> Result

  /// The work ended.
  ///
  /// - Parameters:
  ///   - outcome: How it ended.
  ///   - duration: How long it took, read from the run's ``OperationContext/operationClock``.
  func ended(_ outcome: OperationRunOutcome, duration: Duration)
}

extension OperationWorkObservation {
  /// Calls `body`.
  ///
  /// - Parameter body: The work.
  /// - Returns: What `body` returns.
  public func perform<Result>(_ body: () async -> Result) async -> Result {
    await body()
  }
}

/// How a run ended.
public enum OperationRunOutcome: Sendable {
  /// The run returned a value.
  case succeeded
  /// The run threw an error other than a cancellation or a timeout.
  case failed(any Error)
  /// The run was cancelled.
  case cancelled
  /// The run timed out (it threw ``OperationTimeoutError``).
  case timedOut

  /// The outcome of a run's result.
  ///
  /// - Parameter result: The result.
  public init<Value, Failure: Error>(_ result: Result<Value, Failure>) {
    switch result {
    case .success: self = .succeeded
    case .failure(is CancellationError): self = .cancelled
    case .failure(is OperationTimeoutError): self = .timedOut
    case .failure(let error): self = .failed(error)
    }
  }

  /// A short name of the outcome: `success`, `failure`, `cancelled` or `timeout`.
  public var name: String {
    switch self {
    case .succeeded: "success"
    case .failed: "failure"
    case .cancelled: "cancelled"
    case .timedOut: "timeout"
    }
  }
}

/// Something that happened to a run or a store, other than its start and end.
public enum OperationInstrumentEvent: Hashable, Sendable {
  /// A `retry(limit:)` modifier starts attempt `attempt` + 1 after a failure (`attempt` is 1 for
  /// the first retry).
  case retried(attempt: Int)
  /// A deduplicated run joined a run in flight instead of running the operation.
  case joinedRunInFlight
  /// A `timeout(after:)` modifier ended a run.
  case timedOut
  /// A store left its client: collected after its delay, or evicted under memory pressure.
  case evicted
  /// A value of the store could not be written to its persistent cache (it could not be
  /// encoded, or the storage failed); the store keeps the value, the disk does not have it.
  case persistenceWriteFailed
  /// A ``RetryBudget`` refused a retry that `retry(limit:)` would have made: the run failed with
  /// its last error at once.
  case retryRefusedByBudget(budget: String)
  /// A ``CircuitBreaker`` changed state, because of this run's outcome or its start.
  case circuitBreakerTransition(
    breaker: String,
    from: CircuitBreaker.State,
    to: CircuitBreaker.State
  )
  /// An open ``CircuitBreaker`` failed the run at once, without calling the operation.
  case rejectedByCircuitBreaker(breaker: String)
  /// A ``RateLimiter`` delayed the start of the run by `wait`.
  case rateLimited(limiter: String, wait: OperationDuration)
  /// A ``RateLimiter`` or a ``Bulkhead`` that fails fast refused the run.
  case rejectedWhenFull(policy: String)
}

// MARK: - Context

extension OperationContext {
  /// The instruments that hear of the runs and events of stores created with this context.
  public var operationInstruments: [any OperationInstrument] {
    get {
      // NB: Until a context is given an instrument, no context has one, and a run skips the
      // lookup: a process without instruments pays one atomic load per run.
      guard instrumentsWereSet.load(ordering: .relaxed) else { return [] }
      return self[OperationInstrumentsKey.self]
    }
    set {
      if !newValue.isEmpty {
        instrumentsWereSet.store(true, ordering: .relaxed)
      }
      self[OperationInstrumentsKey.self] = newValue
    }
  }

  private enum OperationInstrumentsKey: Key {
    static var defaultValue: [any OperationInstrument] { [] }
  }

  /// The first instrument of type `Instrument` among ``operationInstruments``.
  package func instrument<Instrument: OperationInstrument>(
    of type: Instrument.Type
  ) -> Instrument? {
    self.operationInstruments.lazy.compactMap { $0 as? Instrument }.first
  }

  /// Replaces every instrument of type `Instrument` with `instrument`, or removes them for `nil`.
  package mutating func replaceInstruments<Instrument: OperationInstrument>(
    of type: Instrument.Type,
    with instrument: Instrument?
  ) {
    var instruments = self.operationInstruments.filter { !($0 is Instrument) }
    if let instrument {
      instruments.append(instrument)
    }
    self.operationInstruments = instruments
  }

  /// What the context's instruments know of its run.
  private func runInfo() -> OperationRunInfo {
    guard let store = self.runningOperationStore else {
      return OperationRunInfo(path: OperationPath(), operationTypeName: nil, context: self)
    }
    return OperationRunInfo(store.path, store.instrumentation, context: self)
  }

  /// Tells every instrument of the context about `event`.
  package func record(_ event: OperationInstrumentEvent) {
    let instruments = self.operationInstruments
    guard !instruments.isEmpty else { return }
    let run = self.runInfo()
    for instrument in instruments {
      instrument.record(event, in: run)
    }
  }

  /// Performs `body` as work of `kind`, observed by the context's instruments.
  ///
  /// Without instruments, this calls `body` and nothing else.
  ///
  /// NB: Always inlined, so that work without instruments (the common case) costs its callers a
  /// flag check and a direct call of `body`, not a generic `async` frame.
  @inline(__always) @usableFromInline
  package func performWork<Value, Failure: Error>(
    _ kind: @autoclosure () -> OperationWork.Kind,
    _ body: () async -> Result<Value, Failure>
  ) async -> Result<Value, Failure> {
    let instruments = self.operationInstruments
    guard !instruments.isEmpty else { return await body() }
    return await self.performObservedWork(kind(), instruments, body)
  }

  /// Performs `body` as work of `kind`, observed by `instruments`.
  private func performObservedWork<Value, Failure: Error>(
    _ kind: OperationWork.Kind,
    _ instruments: [any OperationInstrument],
    _ body: () async -> Result<Value, Failure>
  ) async -> Result<Value, Failure> {
    let work = OperationWork(kind: kind, run: self.runInfo())
    let observations = instruments.compactMap { $0.started(work) }
    guard !observations.isEmpty else { return await body() }
    // NB: Durations read the context's clock (decision 4), as the store's dates do, so that a
    // test that drives time sees the durations it drives. A wall clock can step back; a work's
    // duration is then zero, never negative.
    let clock = self.operationClock
    let start = clock.now()
    let result = await Self.perform(observations[...], body)
    let duration = Duration.seconds(max(0, clock.now().timeIntervalSince(start)))
    let outcome = OperationRunOutcome(result)
    for observation in observations {
      observation.ended(outcome, duration: duration)
    }
    return result
  }

  /// Nests `body` in the observations' `perform(_:)`, the first outermost.
  private static func perform<Result>(
    _ observations: ArraySlice<any OperationWorkObservation>,
    _ body: () async -> Result
  ) async -> Result {
    guard let first = observations.first else { return await body() }
    return await first.perform { await Self.perform(observations.dropFirst(), body) }
  }
}

/// What instruments are told of a store: names built once, when the store is created.
package struct StoreInstrumentation: Sendable {
  let operationTypeName: String
  let pathDescription: String
}

/// Whether any context was ever given an instrument.
private let instrumentsWereSet = Atomic<Bool>(false)

// MARK: - Modifier

extension OperationRequest {
  /// Adds an instrument that hears of this operation's runs and events; see
  /// ``OperationInstrument``.
  ///
  /// - Parameter instrument: The instrument.
  /// - Returns: The modified operation.
  public func instrumented(
    with instrument: some OperationInstrument
  ) -> ModifiedOperation<Self, _InstrumentedModifier<Self>> {
    self.modifier(_InstrumentedModifier(instrument: instrument))
  }
}

/// The modifier behind ``OperationRequest/instrumented(with:)``.
public struct _InstrumentedModifier<Operation: OperationRequest>: _ContextUpdatingOperationModifier
{
  let instrument: any OperationInstrument

  /// Adds the instrument to ``OperationContext/operationInstruments``.
  public func setup(context: inout OperationContext) {
    context.operationInstruments.append(self.instrument)
  }
}

/// The modifier behind switches such as `metrics(_:)` and `traced(_:)`: it replaces the context's
/// instruments of one type with its own.
public struct _ReplacingInstrumentModifier<
  Operation: OperationRequest,
  Instrument: OperationInstrument
>: _ContextUpdatingOperationModifier {
  let instrument: Instrument

  /// Creates the modifier.
  ///
  /// - Parameter instrument: The instrument that replaces the context's instruments of its type.
  package init(instrument: Instrument) {
    self.instrument = instrument
  }

  /// Replaces the context's instruments of type `Instrument` with this modifier's.
  public func setup(context: inout OperationContext) {
    context.replaceInstruments(of: Instrument.self, with: self.instrument)
  }
}

// MARK: - Stores

extension OperationStore {
  /// Tells the instruments of the store's context about `event`.
  package func recordInstrumentEvent(_ event: OperationInstrumentEvent) {
    let context = self.context
    let instruments = context.operationInstruments
    guard !instruments.isEmpty else { return }
    let run = OperationRunInfo(self.path, self.instrumentation, context: context)
    for instrument in instruments {
      instrument.record(event, in: run)
    }
  }
}
