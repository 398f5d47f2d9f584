import OperationCore
import OperationGraphTestFixtures
import OperationSynchronization
import OperationTestSupport

// Requests and recorders that the tests of `Sources/OperationGraph/Work/` share. The names start
// with `Work` so that they cannot clash with the fixtures of the graph's other tests.

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
