import OperationCore
import OperationSynchronization
import SharingOperation

/// A scheduler that holds its work until the test runs it, to stand for a scheduler that runs
/// late or out of order.
final class HeldStateScheduler: SharedOperationStateScheduler, Sendable {
  private let work = Lock([@Sendable () -> Void]())

  /// How many units of work are held.
  var count: Int {
    self.work.withLock { $0.count }
  }

  func schedule(work: @escaping @Sendable () -> Void) {
    self.work.withLock { $0.append(work) }
  }

  /// Runs the unit of work scheduled first, if there is one.
  func runFirst() {
    let first = self.work.withLock { work in
      work.isEmpty ? nil : work.removeFirst()
    }
    first?()
  }

  /// Runs every held unit of work, in the order it was scheduled or backwards.
  func runAll(reversed: Bool = false) {
    let work = self.work.withLock { work in
      defer { work = [] }
      return work
    }
    for item in reversed ? work.reversed() : work {
      item()
    }
  }
}
