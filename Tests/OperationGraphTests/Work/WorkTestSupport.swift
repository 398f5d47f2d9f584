import OperationCore
import OperationTestSupport
import OperationSynchronization

// Requests and recorders that the tests of `Sources/OperationGraph/Work/` share. The names start
// with `Work` so that they cannot clash with the fixtures of the graph's other tests.

/// The error of a scripted run, numbered by the run that threw it (from 1).
struct WorkError: Error, Hashable {
  let run: Int
}

/// Counts the runs of a request and records what each run saw.
final class WorkRunLog: Sendable {
  private struct State {
    var runs = 0
    var retryIndices = [Int?]()
    var sawCancellation = [Bool]()
  }

  private let state = Lock(State())

  /// The number of runs so far.
  var runs: Int { self.state.withLock { $0.runs } }

  /// The context's retry index of every run, in order.
  var retryIndices: [Int?] { self.state.withLock { $0.retryIndices } }

  /// Whether each run found its task cancelled when it ended, in order.
  var sawCancellation: [Bool] { self.state.withLock { $0.sawCancellation } }

  /// Records the start of a run and returns its number, from 1.
  func start(_ context: OperationContext) -> Int {
    self.state.withLock { state in
      state.runs += 1
      state.retryIndices.append(context.operationRetryIndex)
      return state.runs
    }
  }

  /// Records whether the task of the run that ends now is cancelled.
  func end() {
    let isCancelled = Task.isCancelled
    self.state.withLock { $0.sawCancellation.append(isCancelled) }
  }
}

/// A query whose every run returns what its script says for that run's number (from 1), with a
/// typed error.
struct WorkScriptedQuery<Value: Sendable>: QueryRequest {
  let log: WorkRunLog
  let script: @Sendable (Int) -> Result<Value, WorkError>

  init(
    log: WorkRunLog = WorkRunLog(),
    _ script: @escaping @Sendable (Int) -> Result<Value, WorkError>
  ) {
    self.log = log
    self.script = script
  }

  var path: OperationPath {
    ["work-scripted-query", ObjectIdentifier(self.log)]
  }

  func fetch(
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
  static func failing(
    untilRun successRun: Int?,
    log: WorkRunLog = WorkRunLog()
  ) -> Self {
    Self(log: log) { run in
      guard let successRun, run >= successRun else { return .failure(WorkError(run: run)) }
      return .success(run)
    }
  }
}

/// A request that signals when a run starts, holds it until a gate opens, then throws
/// `CancellationError` if its task was cancelled and returns `value` (or throws
/// `WorkError(run:)` when `fails`) otherwise, unless `ignoresCancellation`.
struct WorkHeldRequest: OperationRequest, Sendable {
  let log = WorkRunLog()
  let started = Gate()
  let release = Gate()
  var value = 7
  var fails = false
  var ignoresCancellation = false

  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    let run = self.log.start(context)
    defer { self.log.end() }
    self.started.open()
    await self.release.wait()
    if Task.isCancelled && !self.ignoresCancellation {
      throw CancellationError()
    }
    if self.fails {
      throw WorkError(run: run)
    }
    return self.value
  }
}

extension WorkHeldRequest {
  /// Cancels `task` while its run of this request is held, then lets the run go on, and returns
  /// what the task ends with.
  func cancelMidRun<Value: Sendable>(
    _ task: Task<Value, any Error>
  ) async -> Result<Value, any Error> {
    await self.started.wait()
    task.cancel()
    self.release.open()
    return await task.result
  }
}

/// Collects the results that a continuation receives.
final class WorkYields<Value: Sendable, Failure: Error>: Sendable {
  private let results = Lock([Result<Value, Failure>]())

  /// Every result received so far, in order.
  var all: [Result<Value, Failure>] { self.results.withLock { $0 } }

  /// A continuation that records what it receives here.
  var continuation: OperationContinuation<Value, Failure> {
    OperationContinuation { result, _ in
      let result = result
      self.results.withLock { $0.append(result) }
    }
  }
}

/// A thread-safe list that closures under test append to.
final class WorkRecorder<Element: Sendable>: Sendable {
  private let elements = Lock([Element]())

  /// Everything appended so far, in order.
  var all: [Element] { self.elements.withLock { $0 } }

  /// Appends an element.
  func append(_ element: Element) {
    self.elements.withLock { $0.append(element) }
  }
}

/// A deterministic generator (xorshift64*), so that random waits are reproducible.
struct WorkSeededGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64

  init(seed: UInt64) {
    self.state = seed == 0 ? 0x2545_F491_4F6C_DD1D : seed
  }

  mutating func next() -> UInt64 {
    self.state ^= self.state >> 12
    self.state ^= self.state << 25
    self.state ^= self.state >> 27
    return self.state &* 0x2545_F491_4F6C_DD1D
  }
}
