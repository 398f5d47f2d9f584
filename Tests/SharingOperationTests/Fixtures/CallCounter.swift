import OperationCore
import OperationSynchronization

/// A thread-safe count of how many times something happened.
final class CallCounter: Sendable {
  private let count = Lock(0)

  var value: Int {
    self.count.withLock { $0 }
  }

  @discardableResult
  func increment() -> Int {
    self.count.withLock { count in
      count += 1
      return count
    }
  }
}
