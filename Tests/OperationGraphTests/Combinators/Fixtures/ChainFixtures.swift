import OperationCore
import OperationGraph
import OperationSynchronization
import OperationTestSupport

/// What the steps of a chain did, in the order they did it.
///
/// When it watches a reporter, each step's start also records that reporter's fraction, so a
/// test can see how a chain shares its progress.
final class ChainLog: Sendable {
  private struct Entries {
    var runs = [String]()
    var setups = [String]()
    var fractionsAtStart = [Double]()
    var stepReporters = [ProgressReporter?]()
  }

  let watched: ProgressReporter?
  private let entries = Lock(Entries())

  init(watching reporter: ProgressReporter? = nil) {
    self.watched = reporter
  }

  /// The names of the steps that ran, in order (once per attempt).
  var runs: [String] { self.entries.withLock { $0.runs } }

  /// The names of the steps whose setup was called, in order.
  var setups: [String] { self.entries.withLock { $0.setups } }

  /// The watched reporter's fraction when each step started.
  var fractionsAtStart: [Double] { self.entries.withLock { $0.fractionsAtStart } }

  /// The reporter each step found in its context.
  var stepReporters: [ProgressReporter?] { self.entries.withLock { $0.stepReporters } }

  func recordRun(_ name: String, context: OperationContext) {
    let fraction = self.watched?.progress.fractionCompleted
    self.entries.withLock { entries in
      entries.runs.append(name)
      entries.stepReporters.append(context.progressReporter)
      if let fraction {
        entries.fractionsAtStart.append(fraction)
      }
    }
  }

  func recordSetup(_ name: String) {
    self.entries.withLock { $0.setups.append(name) }
  }
}

/// A step's error, named after the step.
struct StepError: Error, Hashable {
  let name: String
}

/// A query that records its setup and each run in a log, yields its `yields`, then returns (or
/// throws) its result.
struct Step<Value: Sendable, Failure: Error>: QueryRequest, Sendable {
  let name: String
  let result: Result<Value, Failure>
  let log: ChainLog
  var yields = [Value]()
  /// Called with the run's context when the step runs.
  var onRun: (@Sendable (OperationContext) -> Void)?

  var path: OperationPath {
    ["step", self.name]
  }

  func setup(context: inout OperationContext) {
    self.log.recordSetup(self.name)
  }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, Failure>
  ) async throws(Failure) -> Value {
    self.log.recordRun(self.name, context: context)
    self.onRun?(context)
    for value in self.yields {
      continuation.yield(value)
    }
    return try self.result.get()
  }
}

extension Step where Failure == StepError {
  /// A step that succeeds with `value`.
  static func succeeding(_ name: String, _ value: Value, log: ChainLog) -> Self {
    Self(name: name, result: .success(value), log: log)
  }

  /// A step that fails with `StepError(name:)`.
  static func failing(_ name: String, log: ChainLog) -> Self {
    Self(name: name, result: .failure(StepError(name: name)), log: log)
  }
}

/// A query that holds its run until released or cancelled, then throws `CancellationError` when
/// its task was cancelled, unless it ignores cancellation and returns 1 anyway.
struct HeldStep: QueryRequest, Sendable {
  let name: String
  let log: ChainLog
  var ignoresCancellation = false
  var value = 1
  let started = Gate()
  let release = Gate()
  let finished = Gate()
  let sawCancellation = Lock(false)

  var path: OperationPath {
    ["held-step", self.name]
  }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.log.recordRun(self.name, context: context)
    self.started.open()
    let release = self.release
    await withTaskCancellationHandler {
      await release.wait()
    } onCancel: {
      release.open()
    }
    if Task.isCancelled {
      self.sawCancellation.withLock { $0 = true }
      if !self.ignoresCancellation {
        self.finished.open()
        throw CancellationError()
      }
    }
    self.finished.open()
    return self.value
  }
}

/// Whether two fractions are equal but for rounding.
func isClose(_ lhs: [Double], _ rhs: [Double]) -> Bool {
  lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { abs($0 - $1) < 1e-9 }
}

/// Waits until a reporter's fraction reaches `fraction`.
func waitUntil(_ reporter: ProgressReporter, reaches fraction: Double) async {
  for await progress in reporter.updates where progress.fractionCompleted >= fraction - 1e-9 {
    return
  }
}

/// Makes plain stores, without default modifiers, for chains in a client.
final class PlainChainStoreCreator: OperationClient.StoreCreator, Sendable {
  func store<Operation: StatefulOperationRequest>(
    for operation: sending Operation,
    in context: OperationContext,
    with initialState: Operation.State
  ) -> OperationStore<Operation.State> {
    .detached(operation: operation, initialState: initialState, initialContext: context)
  }
}

/// The failure type of a request, for checking which overload a combinator picked.
func failureType<Request: OperationRequest>(of request: Request) -> ObjectIdentifier {
  ObjectIdentifier(Request.Failure.self)
}

/// The chain marker at a position of a path, if there is one.
func marker(at index: Int, of path: OperationPath) -> OperationChainPathMarker? {
  path[index].base as? OperationChainPathMarker
}
