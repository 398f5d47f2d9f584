import OperationCore
import OperationSynchronization

/// Records what nodes do while they run: how many run at once at most, how often each ran, and
/// when each entered and left, on one counter, so that the order can be checked afterwards.
package final class ConcurrencyProbe: Sendable {
  private struct State {
    var running = 0
    var maxRunning = 0
    var clock = 0
    var runs: [Int]
    var entered: [Int?]
    var exited: [Int?]
  }

  private let state: Lock<State>

  package init(nodeCount: Int) {
    self.state = Lock(
      State(
        runs: Array(repeating: 0, count: nodeCount),
        entered: Array(repeating: nil, count: nodeCount),
        exited: Array(repeating: nil, count: nodeCount)
      )
    )
  }

  package func enter(_ node: Int) {
    self.state.withLock { state in
      state.running += 1
      state.maxRunning = max(state.maxRunning, state.running)
      state.runs[node] += 1
      state.clock += 1
      state.entered[node] = state.clock
    }
  }

  package func exit(_ node: Int) {
    self.state.withLock { state in
      state.running -= 1
      state.clock += 1
      state.exited[node] = state.clock
    }
  }

  package var running: Int { self.state.withLock { $0.running } }
  package var maxRunning: Int { self.state.withLock { $0.maxRunning } }
  package var runs: [Int] { self.state.withLock { $0.runs } }

  /// The nodes that started before something they depend on had finished running.
  ///
  /// A node that did not run (it was cancelled) passes its own dependencies on: what depends on
  /// it must still start after they finished.
  package func orderViolations(dependencies: [[Int]]) -> [Int] {
    let (entered, exited) = self.state.withLock { ($0.entered, $0.exited) }
    var latestExit = [Int?](repeating: nil, count: dependencies.count)
    // NB: Dependencies always have smaller indices here, so one pass in order computes them.
    for node in dependencies.indices {
      if let exit = exited[node] {
        latestExit[node] = exit
      } else {
        latestExit[node] = dependencies[node].compactMap { latestExit[$0] }.max()
      }
    }
    return dependencies.indices.filter { node in
      guard let start = entered[node] else { return false }
      return dependencies[node].contains { dependency in
        guard let exit = latestExit[dependency] else { return false }
        return exit > start
      }
    }
  }
}

/// A small deterministic random number generator, so that a failing graph can be built again.
package struct SeededGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64

  package init(seed: UInt64) {
    self.state = seed
  }

  package mutating func next() -> UInt64 {
    self.state &+= 0x9E37_79B9_7F4A_7C15
    var z = self.state
    z = (z ^ (z &>> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z &>> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z &>> 31)
  }
}
