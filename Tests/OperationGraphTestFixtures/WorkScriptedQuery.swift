package import OperationCore
import OperationSynchronization

/// The error of a scripted run, numbered by the run that threw it (from 1).
package struct WorkError: Error, Hashable {
  package let run: Int

  package init(run: Int) {
    self.run = run
  }
}

/// Counts the runs of a request and records what each run saw.
package final class WorkRunLog: Sendable {
  private struct State {
    var runs = 0
    var retryIndices = [Int?]()
    var sawCancellation = [Bool]()
  }

  private let state = Lock(State())

  package init() {}

  /// The number of runs so far.
  package var runs: Int { self.state.withLock { $0.runs } }

  /// The context's retry index of every run, in order.
  package var retryIndices: [Int?] { self.state.withLock { $0.retryIndices } }

  /// Whether each run found its task cancelled when it ended, in order.
  package var sawCancellation: [Bool] { self.state.withLock { $0.sawCancellation } }

  /// Records the start of a run and returns its number, from 1.
  package func start(_ context: OperationContext) -> Int {
    self.state.withLock { state in
      state.runs += 1
      state.retryIndices.append(context.operationRetryIndex)
      return state.runs
    }
  }

  /// Records whether the task of the run that ends now is cancelled.
  package func end() {
    let isCancelled = Task.isCancelled
    self.state.withLock { $0.sawCancellation.append(isCancelled) }
  }
}

/// A query whose every run returns what its script says for that run's number (from 1), with a
/// typed error.
package struct WorkScriptedQuery<Value: Sendable>: QueryRequest {
  package let log: WorkRunLog
  package let script: @Sendable (Int) -> Result<Value, WorkError>

  package init(
    log: WorkRunLog = WorkRunLog(),
    _ script: @escaping @Sendable (Int) -> Result<Value, WorkError>
  ) {
    self.log = log
    self.script = script
  }

  package var path: OperationPath {
    ["work-scripted-query", ObjectIdentifier(self.log)]
  }

  package func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, WorkError>
  ) async throws(WorkError) -> Value {
    let run = self.log.start(context)
    defer { self.log.end() }
    return try self.script(run).get()
  }
}

extension WorkScriptedQuery where Value == Int {
  /// A query that fails with `WorkError(run:)` on runs before `successRun` and returns the run's
  /// number from then on; it always fails when `successRun` is nil.
  package static func failing(
    untilRun successRun: Int?,
    log: WorkRunLog = WorkRunLog()
  ) -> Self {
    Self(log: log) { run in
      guard let successRun, run >= successRun else { return .failure(WorkError(run: run)) }
      return .success(run)
    }
  }
}
