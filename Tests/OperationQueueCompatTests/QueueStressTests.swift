import Foundation
import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationQueueCompat
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(3))) struct `Queue stress tests` {
  /// 10,000 operations with random dependencies (on earlier operations, so there is no cycle)
  /// and random mutual-exclusion categories, on one queue of width 8: each runs once, after its
  /// dependencies, and no two of one category overlap.
  @Test(arguments: [UInt64(2_026)])
  func `10,000 operations with random dependencies and categories keep every rule`(seed: UInt64)
    async throws
  {
    let count = 10_000
    let categories = (0..<6).map { "QueueStressTests.\(seed).\($0)" }
    var generator = SeededGenerator(seed: seed)
    var dependencies = [[Int]]()
    var operationCategories = [[String]]()
    for index in 0..<count {
      let dependencyCount = index == 0 ? 0 : Int.random(in: 0...3, using: &generator)
      dependencies.append(
        Array(Set((0..<dependencyCount).map { _ in Int.random(in: 0..<index, using: &generator) }))
      )
      let categoryCount = [0, 0, 1, 1, 2].randomElement(using: &generator)!
      operationCategories.append(
        Array(Set((0..<categoryCount).map { _ in categories.randomElement(using: &generator)! }))
      )
    }

    let monitor = StressMonitor(count: count, categories: operationCategories)
    let operations = (0..<count).map { StressOperation(index: $0, monitor: monitor) }
    for (index, operation) in operations.enumerated() {
      for dependency in dependencies[index] {
        operation.addDependency(operations[dependency])
      }
      for category in operationCategories[index] {
        operation.addCondition(MutuallyExclusive(category: category))
      }
    }
    let finished = Latch()
    for operation in operations {
      operation.addDidFinishBlock { finished.arrive() }
    }
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 8
    for operation in operations.shuffled(using: &generator) {
      queue.addOperation(operation)
    }
    await finished.wait(for: count)

    #expect(monitor.runs == Array(repeating: 1, count: count))
    #expect(monitor.overlaps.isEmpty)
    #expect(monitor.maxRunning <= 8)
    #expect(monitor.maxRunning > 1)
    let startedBeforeDependency = (0..<count).filter { index in
      dependencies[index].contains { !monitor.finishedBeforeStart(of: index, dependency: $0) }
    }
    #expect(startedBeforeDependency.isEmpty)
    #expect(operationCategories.contains { !$0.isEmpty })
  }
}

/// Records, under one lock, what the stress test checks.
private final class StressMonitor: Sendable {
  private struct State {
    var runs: [Int]
    var running = 0
    var maxRunning = 0
    var clock = 0
    var started: [Int?]
    var finished: [Int?]
    var holders = [String: Int]()
    var overlaps = [String]()
  }

  private let state: Lock<State>
  private let categories: [[String]]

  init(count: Int, categories: [[String]]) {
    self.categories = categories
    self.state = Lock(
      State(
        runs: Array(repeating: 0, count: count),
        started: Array(repeating: nil, count: count),
        finished: Array(repeating: nil, count: count)
      )
    )
  }

  func start(_ index: Int) {
    self.state.withLock { state in
      state.runs[index] += 1
      state.running += 1
      state.maxRunning = max(state.maxRunning, state.running)
      state.clock += 1
      state.started[index] = state.clock
      for category in self.categories[index] {
        if let holder = state.holders[category] {
          state.overlaps.append("\(index) and \(holder) in \(category)")
        }
        state.holders[category] = index
      }
    }
  }

  func finish(_ index: Int) {
    self.state.withLock { state in
      state.running -= 1
      state.clock += 1
      state.finished[index] = state.clock
      for category in self.categories[index] where state.holders[category] == index {
        state.holders[category] = nil
      }
    }
  }

  var runs: [Int] { self.state.withLock { $0.runs } }
  var overlaps: [String] { self.state.withLock { $0.overlaps } }
  var maxRunning: Int { self.state.withLock { $0.maxRunning } }

  func finishedBeforeStart(of index: Int, dependency: Int) -> Bool {
    self.state.withLock { state in
      guard let start = state.started[index], let finish = state.finished[dependency] else {
        return false
      }
      return finish < start
    }
  }
}

/// Reports to the monitor when it executes and finishes, on another thread.
private final class StressOperation: ConcurrentOperation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; the stored properties are
  // `let`s of `Sendable` types.
  private let index: Int
  private let monitor: StressMonitor

  init(index: Int, monitor: StressMonitor) {
    self.index = index
    self.monitor = monitor
  }

  override func execute() {
    self.monitor.start(self.index)
    DispatchQueue.global().async {
      self.monitor.finish(self.index)
      self.finish()
    }
  }
}
