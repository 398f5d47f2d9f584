import Foundation
import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationQueueCompat
import OperationSynchronization
import OperationTestSupport

/// A ``ConcurrentOperation`` for tests: it records that it executed, waits for a gate when it has
/// one (finishing at once when cancelled), and finishes with its error.
final class TestOperation: ConcurrentOperation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; the stored properties are
  // `let`s of `Sendable` types.
  private let error: (any Error)?
  private let gate: Gate?
  private let log: EventLog?
  private let executions = Lock(0)

  init(name: String? = nil, error: (any Error)? = nil, gate: Gate? = nil, log: EventLog? = nil) {
    self.error = error
    self.gate = gate
    self.log = log
    super.init()
    self.name = name
  }

  /// How many times ``execute()`` ran.
  var executionCount: Int {
    self.executions.withLock { $0 }
  }

  var didExecute: Bool {
    self.executionCount > 0
  }

  override func execute() {
    self.executions.withLock { $0 += 1 }
    self.log?.append(self.name ?? "?")
    guard let gate else {
      self.finish(self.error)
      return
    }
    Task {
      await gate.wait()
      self.finish(self.error)
    }
  }

  override func cancel() {
    super.cancel()
    if self.isExecuting, self.gate != nil {
      self.finish(self.error)
    }
  }
}

struct TestError: Error, Hashable {
  var id = 0
}
