import OperationCore
import OperationSynchronization
import OperationTestSupport

/// A query whose fetches are numbered from 0 and each wait until the test releases them with a
/// result, so that a test can order the ends of overlapping fetches.
struct SteppedQuery: QueryRequest {
  let steps: QuerySteps
  let path: OperationPath

  init(path: OperationPath, steps: QuerySteps = QuerySteps()) {
    self.path = path
    self.steps = steps
  }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    let result = await self.steps.next()
    try Task.checkCancellation()
    return try result.get()
  }
}

/// The fetches of a ``SteppedQuery``: each one starts, then waits for its release.
final class QuerySteps: Sendable {
  private struct Step {
    let started = Gate()
    let released = Gate()
    var result: Result<Int, TestError> = .success(0)
  }

  private struct State {
    var steps = [Int: Step]()
    var startedCount = 0
  }

  private let state = Lock(State())

  /// The number of fetches that started.
  var startedCount: Int {
    self.state.withLock { $0.startedCount }
  }

  /// Waits until fetch `index` has started.
  func waitUntilStarted(_ index: Int) async {
    await self.step(index).started.wait()
  }

  /// Lets fetch `index` end with `result`.
  func release(_ index: Int, with result: Result<Int, TestError>) {
    let gate = self.state.withLock { state in
      state.steps[index, default: Step()].result = result
      return state.steps[index, default: Step()].released
    }
    gate.open()
  }

  /// Lets fetch `index` return `value`.
  func release(_ index: Int, returning value: Int) {
    self.release(index, with: .success(value))
  }

  fileprivate func next() async -> Result<Int, TestError> {
    let (index, step) = self.state.withLock { state in
      let index = state.startedCount
      state.startedCount += 1
      let step = state.steps[index, default: Step()]
      state.steps[index] = step
      return (index, step)
    }
    step.started.open()
    await step.released.wait()
    return self.state.withLock { $0.steps[index]!.result }
  }

  private func step(_ index: Int) -> Step {
    self.state.withLock { state in
      let step = state.steps[index, default: Step()]
      state.steps[index] = step
      return step
    }
  }
}
