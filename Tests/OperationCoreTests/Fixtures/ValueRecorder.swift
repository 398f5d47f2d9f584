import OperationCore
import OperationSynchronization

/// A thread-safe list of the values a callback received, in order.
final class ValueRecorder<Value: Sendable>: Sendable {
  private let storage = Lock([Value]())

  var values: [Value] {
    self.storage.withLock { $0 }
  }

  func record(_ value: Value) {
    self.storage.withLock { $0.append(value) }
  }
}
