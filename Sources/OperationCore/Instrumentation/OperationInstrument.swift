import Synchronization

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
/// The callbacks run on the thread of the work they describe, with no lock of the library held;
/// keep them quick. Without instruments, a run pays for one read of the context.
public protocol OperationInstrument: Sendable {
  /// A store's run starts; the returned observation hears how it ends.
  ///
  /// - Parameter run: The run.
  /// - Returns: What hears the end of the run, or `nil` to ignore it.
  func runStarted(_ run: OperationRunInfo) -> (any OperationRunObservation)?

  /// Something happened to a run or a store: a retry, a join of a run in flight, a timeout, an
  /// eviction.
  ///
  /// - Parameters:
  ///   - event: What happened.
  ///   - path: The path of the store it happened to, empty outside a store.
  ///   - context: The context of the run, or of the store for an eviction.
  func record(_ event: OperationInstrumentEvent, path: OperationPath, context: OperationContext)
}

/// What an ``OperationInstrument`` knows of a run when it starts.
public struct OperationRunInfo: Sendable {
  /// The store's path.
  public let path: OperationPath

  /// The name of the operation's type without its modifiers, such as `PostQuery`; `nil` when the
  /// store had no instruments when it was created.
  public let operationTypeName: String?

  /// The run's context.
  public let context: OperationContext
}

/// Hears how one run ends.
public protocol OperationRunObservation: Sendable {
  /// The run ended.
  ///
  /// - Parameters:
  ///   - outcome: How it ended.
  ///   - duration: How long it took, from its start to its final result.
  func runEnded(_ outcome: OperationRunOutcome, duration: Duration)
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

  /// Tells every instrument of the context about `event`.
  package func record(_ event: OperationInstrumentEvent, path: OperationPath? = nil) {
    let instruments = self.operationInstruments
    guard !instruments.isEmpty else { return }
    let path = path ?? self.runningOperationStore?.path ?? OperationPath()
    for instrument in instruments {
      instrument.record(event, path: path, context: self)
    }
  }
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

// MARK: - Store runs

/// The observations of one run by the instruments of its context, and its start.
package struct RunObservations: Sendable {
  let observations: [any OperationRunObservation]
  let start: ContinuousClock.Instant

  /// Tells every observation how the run ended.
  func end<Value, Failure: Error>(_ result: Result<Value, Failure>) {
    let duration = ContinuousClock.now - self.start
    let outcome = OperationRunOutcome(result)
    for observation in self.observations {
      observation.runEnded(outcome, duration: duration)
    }
  }
}

extension OperationStore {
  /// Tells the instruments that a run starts.
  func startObservation(
    _ instruments: [any OperationInstrument],
    _ context: OperationContext
  ) -> RunObservations? {
    let info = OperationRunInfo(
      path: self.path,
      operationTypeName: self.operationTypeName,
      context: context
    )
    let observations = instruments.compactMap { $0.runStarted(info) }
    guard !observations.isEmpty else { return nil }
    return RunObservations(observations: observations, start: .now)
  }
}
